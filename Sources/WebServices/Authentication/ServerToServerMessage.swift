import Crypto
import Foundation

/// The text a server-to-server request signs: `<date>:<base64(SHA-256(body))>:<subpath>`.
///
/// ```swift
/// let hash = ServerToServerMessage.bodyHash(Array(#"{"query":{"recordType":"Articles"}}"#.utf8))
/// // "myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o="
/// ServerToServerMessage.text(date: "2016-01-25T22:15:43Z", bodyHash: hash,
///                            subpath: "/database/1/iCloud.com.example.MyApp/development/public/records/query")
/// ```
public enum ServerToServerMessage {
    /// The base64 (standard alphabet, padded) SHA-256 digest of `body`.
    /// - Parameter body: The exact body bytes, empty for a request without a body.
    /// - Returns: 44 characters of base64; `47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=` for no body.
    public static func bodyHash(_ body: [UInt8]) -> String {
        Data(SHA256.hash(data: body)).base64EncodedString()
    }

    /// The signed text.
    /// - Parameters:
    ///   - date: The date header's value, exactly as sent.
    ///   - bodyHash: ``bodyHash(_:)`` of the body, or the empty string some clients use for no body.
    ///   - subpath: The request path from `/database/1/…`, with or without the query string.
    /// - Returns: `<date>:<bodyHash>:<subpath>`.
    public static func text(date: String, bodyHash: String, subpath: String) -> String {
        "\(date):\(bodyHash):\(subpath)"
    }
}
