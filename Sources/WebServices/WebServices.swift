/// CloudKit Web Services: the JSON API, its authentication and its error mapping.
public enum WebServices {}
