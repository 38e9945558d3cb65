/// The admin console and the public pages served beside the API.
public enum Console {}
