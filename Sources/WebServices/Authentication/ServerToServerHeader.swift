/// The header names of CloudKit's server-to-server request signing.
public enum ServerToServerHeader {
    /// The key ID the CloudKit Dashboard (here: the console) gave for the registered public key.
    public static let keyID = "X-Apple-CloudKit-Request-KeyID"
    /// The signing date, ISO 8601 UTC, such as `2016-01-25T22:15:43Z`.
    public static let date = "X-Apple-CloudKit-Request-ISO8601Date"
    /// The base64 ECDSA signature of `<date>:<base64 body hash>:<subpath>`.
    public static let signature = "X-Apple-CloudKit-Request-SignatureV1"
}
