import CloudStore
import Crypto
import Foundation

/// Checks CloudKit server-to-server request signatures (ECDSA P-256 with SHA-256).
///
/// The signed text is `<date>:<base64(SHA-256(body))>:<subpath>` (see ``ServerToServerMessage``).
/// Real clients differ in small ways, and each way is accepted:
/// - the signature is base64 of DER (every known client) or of raw 64-byte `r‖s`;
/// - the subpath is the request target with its query string (CloudKit JS, requests-cloudkit)
///   or the bare path (MistKit, OpenCloudKit);
/// - with no body, the hash of the empty body (most clients) or an empty string (MistKit).
///
/// A request dated more than ``clockSkew`` away from `now`, in either direction, is refused
/// even when its signature is valid, which bounds how long a captured request can be replayed.
/// There is deliberately no cache of seen signatures: clients legitimately retry the very same
/// signed request.
///
/// ```swift
/// let verifier = ServerToServerSignatureVerifier()
/// try verifier.verify(request: parts, publicKey: key.signingKey, now: Date())
/// ```
public struct ServerToServerSignatureVerifier: Sendable {
    /// How far the signed date may be from the server's clock, either way.
    public var clockSkew: Duration

    /// Creates a verifier.
    /// - Parameter clockSkew: How far the signed date may be from the server's clock, either
    ///   way; CloudKit is reported to allow 10 minutes.
    public init(clockSkew: Duration = .seconds(600)) {
        self.clockSkew = clockSkew
    }

    /// Verifies a signed request.
    /// - Parameters:
    ///   - request: The signed parts of the request.
    ///   - publicKey: The public key registered under `request.keyID`.
    ///   - now: The server's current time.
    /// - Throws: ``ServerToServerAuthError/malformedDate``,
    ///   ``ServerToServerAuthError/dateOutsideWindow(skewSeconds:allowedSeconds:)``,
    ///   ``ServerToServerAuthError/malformedSignature`` or ``ServerToServerAuthError/badSignature``.
    public func verify(
        request: SignedRequestParts,
        publicKey: P256.Signing.PublicKey,
        now: Date
    ) throws(ServerToServerAuthError) {
        guard let date = ServerToServerDate.parse(request.dateHeader) else {
            throw .malformedDate
        }
        let skew = date.timeIntervalSince(now)
        let allowed = Double(clockSkew.components.seconds) + Double(clockSkew.components.attoseconds) / 1e18
        guard abs(skew) <= allowed else {
            // Rounded away from zero, so a skew just past the window never reads as inside it.
            throw .dateOutsideWindow(skewSeconds: Int(skew.rounded(.awayFromZero)), allowedSeconds: Int(allowed))
        }

        let signatures = try Self.decodeSignature(request.signatureHeader)

        var bodyHashes = [ServerToServerMessage.bodyHash(request.body)]
        if request.body.isEmpty {
            bodyHashes.append("")
        }
        for subpath in request.signedSubpathCandidates {
            for bodyHash in bodyHashes {
                let text = ServerToServerMessage.text(date: request.dateHeader, bodyHash: bodyHash, subpath: subpath)
                let digest = SHA256.hash(data: Array(text.utf8))
                for signature in signatures where publicKey.isValidSignature(signature, for: digest) {
                    return
                }
            }
        }
        throw .badSignature
    }

    /// Verifies a signed request against a registered key, as the variant taking a `P256.Signing.PublicKey` does.
    /// - Parameters:
    ///   - request: The signed parts of the request.
    ///   - publicKey: The key registered under `request.keyID`.
    ///   - now: The server's current time.
    /// - Throws: ``ServerToServerAuthError`` saying what failed.
    public func verify(
        request: SignedRequestParts,
        publicKey: ServerPublicKey,
        now: Date
    ) throws(ServerToServerAuthError) {
        try verify(request: request, publicKey: publicKey.signingKey, now: now)
    }

    /// Decodes the signature header into the signatures it may stand for: DER, and raw `r‖s`
    /// when it is 64 bytes (a DER encoding of that length is possible, if very rare).
    static func decodeSignature(_ header: String) throws(ServerToServerAuthError) -> [P256.Signing.ECDSASignature] {
        guard let bytes = Data(base64Encoded: header) else {
            throw .malformedSignature
        }
        var signatures: [P256.Signing.ECDSASignature] = []
        if let der = try? P256.Signing.ECDSASignature(derRepresentation: bytes) {
            signatures.append(der)
        }
        if bytes.count == 64, let raw = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) {
            signatures.append(raw)
        }
        guard !signatures.isEmpty else {
            throw .malformedSignature
        }
        return signatures
    }
}
