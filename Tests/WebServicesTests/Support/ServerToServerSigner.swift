import Crypto
import Foundation
import WebServices

/// Signs requests the way CloudKit clients do, for tests that call the server as a
/// server-to-server client. It lives with the tests: the server only verifies signatures.
///
/// ```swift
/// let signer = ServerToServerSigner(keyID: keyID, privateKey: privateKey)
/// for (name, value) in try signer.headers(body: body, requestTarget: "/database/1/…/records/query", date: Date()) {
///     request.setHeader(name, value)
/// }
/// ```
public struct ServerToServerSigner: Sendable {
    /// The key ID the server gave for the public key.
    public var keyID: String
    /// The private key whose public key is registered.
    public var privateKey: P256.Signing.PrivateKey

    /// Creates a signer.
    /// - Parameters:
    ///   - keyID: The key ID the server gave for the public key.
    ///   - privateKey: The private key whose public key is registered.
    public init(keyID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.privateKey = privateKey
    }

    /// The three signing headers for a request, signing the hash of the body (also when it is
    /// empty) and `requestTarget` as given, with a DER signature: what CloudKit JS sends.
    /// - Parameters:
    ///   - body: The exact body bytes.
    ///   - requestTarget: The path, with the query string if the request has one.
    ///   - date: The signing date, written in whole seconds.
    /// - Returns: Header names and values, key ID first.
    /// - Throws: An error from the crypto library if signing fails.
    public func headers(body: [UInt8], requestTarget: String, date: Date) throws -> [(name: String, value: String)] {
        let dateText = ServerToServerDate.format(date)
        let text = ServerToServerMessage.text(
            date: dateText, bodyHash: ServerToServerMessage.bodyHash(body), subpath: requestTarget)
        let signature = try privateKey.signature(for: Array(text.utf8))
        return [
            (ServerToServerHeader.keyID, keyID),
            (ServerToServerHeader.date, dateText),
            (ServerToServerHeader.signature, signature.derRepresentation.base64EncodedString()),
        ]
    }
}
