import Crypto
import Foundation
import SwiftASN1

/// A public key registered for server-to-server requests: EC P-256, as CloudKit requires.
///
/// Made from the PEM a developer pastes (`openssl ec -in eckey.pem -pubout` prints it), checked
/// and normalised to its uncompressed SubjectPublicKeyInfo, so the same key always has the same
/// ``derRepresentation``, ``pemRepresentation`` and ``fingerprint``, whatever form it came in.
/// Anything else is refused with a reason, so a developer who pastes the wrong kind of key learns
/// which kind it was.
///
/// ```swift
/// let key = try ServerPublicKey(pemRepresentation: pastedText)
/// key.fingerprint  // 64 lowercase hex characters
/// ```
public struct ServerPublicKey: Sendable, Hashable {
    /// Why a text or DER is not a usable key.
    public struct Unsupported: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong with it, in words for the person who pasted it.
        public var reason: String
        /// Creates an error.
        public init(reason: String) { self.reason = reason }
        /// `Unsupported key: reason`.
        public var description: String { "Unsupported key: \(reason)" }
    }

    /// The key, ready to verify signatures.
    public let signingKey: P256.Signing.PublicKey
    /// The uncompressed SubjectPublicKeyInfo in DER.
    public let derRepresentation: [UInt8]

    /// Reads a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo). `EC PARAMETERS` blocks are
    /// skipped, as `openssl ecparam -genkey` writes one before the key.
    /// - Throws: ``Unsupported`` saying why the text is not an EC P-256 public key (a private
    ///   key, an RSA key, a certificate, another curve, no PEM at all…).
    public init(pemRepresentation text: String) throws(Unsupported) {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: text)
        } catch {
            throw Unsupported(
                reason: Self.looksLikePEM(text)
                    ? "the PEM text cannot be read (is its base64 damaged?)"
                    : "no PEM block found; expected -----BEGIN PUBLIC KEY-----")
        }
        guard let document = documents.first(where: { $0.discriminator != "EC PARAMETERS" }) else {
            throw Unsupported(reason: "no PEM block found; expected -----BEGIN PUBLIC KEY-----")
        }
        switch document.discriminator {
        case "PUBLIC KEY":
            try self.init(derRepresentation: document.derBytes)
        case "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
            throw Unsupported(reason: "this is a private key; register its public key instead (openssl ec -in eckey.pem -pubout)")
        case "RSA PUBLIC KEY", "RSA PRIVATE KEY":
            throw Unsupported(reason: "RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        case "CERTIFICATE":
            throw Unsupported(reason: "this is a certificate; register the EC P-256 public key itself")
        default:
            throw Unsupported(reason: "unexpected PEM block '\(document.discriminator)'; expected PUBLIC KEY")
        }
    }

    /// Reads a DER SubjectPublicKeyInfo.
    /// - Throws: ``Unsupported`` saying why the bytes are not an EC P-256 public key.
    public init(derRepresentation: [UInt8]) throws(Unsupported) {
        let point = try Self.p256Point(derRepresentation)
        let key: P256.Signing.PublicKey
        do {
            // Uncompressed (04‖x‖y) as openssl writes by default, or compressed (02/03‖x).
            key =
                point.first == 0x04
                ? try P256.Signing.PublicKey(x963Representation: point)
                : try P256.Signing.PublicKey(compressedRepresentation: point)
        } catch {
            throw Unsupported(reason: "the key's point is not a valid P-256 public key")
        }
        signingKey = key
        self.derRepresentation = Array(key.derRepresentation)
    }

    /// The key as PEM `PUBLIC KEY`, as `openssl ec -pubout` writes it.
    public var pemRepresentation: String { signingKey.pemRepresentation }

    /// The SHA-256 of ``derRepresentation`` as 64 lowercase hex characters: a stable name for the
    /// key, the same for every encoding of it.
    public var fingerprint: String { SecureToken.hexString(Array(SHA256.hash(data: derRepresentation))) }

    /// Keys are equal when they are the same point.
    public static func == (lhs: ServerPublicKey, rhs: ServerPublicKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }

    /// Hashes the normalised DER.
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }

    // MARK: - Reading

    private static func looksLikePEM(_ text: String) -> Bool { text.contains("-----BEGIN ") }

    private static let notSPKI = Unsupported(reason: "not a DER SubjectPublicKeyInfo")

    /// Curves people paste by mistake, by object identifier.
    private static let knownCurves: [ASN1ObjectIdentifier: String] = [
        ASN1ObjectIdentifier.NamedCurves.secp384r1: "P-384 (secp384r1)",
        ASN1ObjectIdentifier.NamedCurves.secp521r1: "P-521 (secp521r1)",
        [1, 3, 132, 0, 10]: "secp256k1",
    ]

    /// The encoded point of a SubjectPublicKeyInfo for an EC key on P-256:
    /// `SEQUENCE { SEQUENCE { algorithm OID, parameters }, BIT STRING point }`.
    private static func p256Point(_ der: [UInt8]) throws(Unsupported) -> [UInt8] {
        let root: ASN1Node
        do {
            root = try DER.parse(der)
        } catch {
            throw notSPKI
        }
        var algorithm: ASN1ObjectIdentifier?
        var parameters: ASN1Node?
        var bits: ASN1BitString?
        do {
            try DER.sequence(root, identifier: .sequence) { fields in
                guard let algorithmNode = fields.next(), let keyNode = fields.next() else { throw Self.notSPKI }
                try DER.sequence(algorithmNode, identifier: .sequence) { parts in
                    guard let oidNode = parts.next() else { throw Self.notSPKI }
                    algorithm = try ASN1ObjectIdentifier(derEncoded: oidNode)
                    parameters = parts.next()
                    while parts.next() != nil {}
                }
                bits = try ASN1BitString(derEncoded: keyNode)
            }
        } catch {
            throw notSPKI
        }
        guard let algorithm, let bits else { throw notSPKI }
        switch algorithm {
        case ASN1ObjectIdentifier.AlgorithmIdentifier.idEcPublicKey:
            break
        case [1, 2, 840, 113_549, 1, 1, 1]:
            throw Unsupported(reason: "RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        case [1, 3, 101, 112], [1, 3, 101, 113]:
            throw Unsupported(reason: "Ed25519 and Ed448 keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        default:
            throw Unsupported(reason: "key algorithm \(algorithm) is not supported; server-to-server keys are EC P-256 (prime256v1)")
        }
        guard let parameters else { throw Unsupported(reason: "the EC key does not name its curve") }
        guard let curve = try? ASN1ObjectIdentifier(derEncoded: parameters) else {
            throw Unsupported(reason: "EC keys with explicit curve parameters are not supported; use the named curve prime256v1")
        }
        guard curve == ASN1ObjectIdentifier.NamedCurves.secp256r1 else {
            let name = knownCurves[curve] ?? "with OID \(curve)"
            throw Unsupported(reason: "the key is on curve \(name); server-to-server keys must be on P-256 (prime256v1)")
        }
        guard bits.paddingBits == 0, bits.bytes.count > 1 else { throw notSPKI }
        return Array(bits.bytes)
    }
}
