import Crypto
import Foundation

/// A public key registered for server-to-server requests: EC P-256, as CloudKit requires.
///
/// Made from the PEM a developer pastes (`openssl ec -in eckey.pem -pubout` prints it), checked
/// and normalised to its uncompressed SubjectPublicKeyInfo, so the same key always has the
/// same ``derRepresentation``, ``pemRepresentation`` and ``fingerprint``, whatever form it came in.
///
/// ```swift
/// let key = try ServerToServerPublicKey(pemRepresentation: pastedText)
/// key.fingerprint  // 64 lowercase hex characters
/// ```
public struct ServerToServerPublicKey: Sendable, Hashable {
    /// The key, ready to verify signatures.
    public let signingKey: P256.Signing.PublicKey
    /// The uncompressed SubjectPublicKeyInfo in DER.
    public let derRepresentation: [UInt8]

    /// Reads a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo). `EC PARAMETERS` blocks are
    /// skipped, as `openssl ecparam -genkey` writes one before the key.
    /// - Parameter pemRepresentation: The PEM text.
    /// - Throws: ``ServerToServerAuthError/unsupportedKey(_:)`` saying why the text is not an
    ///   EC P-256 public key (a private key, an RSA key, another curve, no PEM at all…).
    public init(pemRepresentation: String) throws(ServerToServerAuthError) {
        let blocks = Self.pemBlocks(pemRepresentation).filter { $0.label != "EC PARAMETERS" }
        guard let block = blocks.first else {
            throw .unsupportedKey("no PEM block found; expected -----BEGIN PUBLIC KEY-----")
        }
        switch block.label {
        case "PUBLIC KEY":
            guard let der = block.der else {
                throw .unsupportedKey("the PEM block is not valid base64")
            }
            try self.init(derRepresentation: der)
        case "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
            throw .unsupportedKey(
                "this is a private key; register its public key instead (openssl ec -in eckey.pem -pubout)")
        case "RSA PUBLIC KEY", "RSA PRIVATE KEY":
            throw .unsupportedKey("RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        case "CERTIFICATE":
            throw .unsupportedKey("this is a certificate; register the EC P-256 public key itself")
        default:
            throw .unsupportedKey("unexpected PEM block '\(block.label)'; expected PUBLIC KEY")
        }
    }

    /// Reads a DER SubjectPublicKeyInfo.
    /// - Parameter derRepresentation: The DER bytes.
    /// - Throws: ``ServerToServerAuthError/unsupportedKey(_:)`` saying why the bytes are not an
    ///   EC P-256 public key.
    public init(derRepresentation: [UInt8]) throws(ServerToServerAuthError) {
        let point = try Self.p256Point(derRepresentation)
        let key: P256.Signing.PublicKey
        do {
            // Uncompressed (04‖x‖y) as openssl writes by default, or compressed (02/03‖x).
            key = point.first == 0x04
                ? try P256.Signing.PublicKey(x963Representation: point)
                : try P256.Signing.PublicKey(compressedRepresentation: point)
        } catch {
            throw .unsupportedKey("the key's point is not a valid P-256 public key")
        }
        signingKey = key
        self.derRepresentation = Array(key.derRepresentation)
    }

    /// The key as PEM `PUBLIC KEY`, as `openssl ec -pubout` writes it.
    public var pemRepresentation: String {
        signingKey.pemRepresentation
    }

    /// The SHA-256 of ``derRepresentation`` as 64 lowercase hex characters: a stable name for
    /// the key, the same for every encoding of it.
    public var fingerprint: String {
        SHA256.hash(data: derRepresentation).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    /// Keys are equal when they are the same point.
    public static func == (lhs: ServerToServerPublicKey, rhs: ServerToServerPublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Hashes the normalised DER.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derRepresentation)
    }

    // MARK: - Reading

    private struct PEMBlock {
        var label: String
        var base64: String
        var der: [UInt8]? { Data(base64Encoded: base64).map(Array.init) }
    }

    private static func pemBlocks(_ text: String) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var current: PEMBlock?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                current = PEMBlock(label: String(line.dropFirst(11).dropLast(5)), base64: "")
            } else if line.hasPrefix("-----END "), var block = current {
                block.base64 = block.base64.filter { !$0.isWhitespace }
                blocks.append(block)
                current = nil
            } else if current != nil {
                current!.base64 += line
            }
        }
        return blocks
    }

    /// The encoded point of a SubjectPublicKeyInfo for an EC key on P-256. Anything else is
    /// refused with a reason, so a developer who registers the wrong kind of key learns which
    /// kind it was.
    private static func p256Point(_ der: [UInt8]) throws(ServerToServerAuthError) -> [UInt8] {
        var outer = DERReader(der[...])
        guard let info = outer.read(tag: DERReader.sequenceTag), outer.isAtEnd else {
            throw .unsupportedKey("not a DER SubjectPublicKeyInfo")
        }
        var fields = DERReader(info)
        guard let algorithm = fields.read(tag: DERReader.sequenceTag) else {
            throw .unsupportedKey("not a DER SubjectPublicKeyInfo")
        }
        var algorithmFields = DERReader(algorithm)
        guard let algorithmOID = algorithmFields.read(tag: DERReader.objectIdentifierTag),
            let algorithmName = DERReader.dottedObjectIdentifier(algorithmOID)
        else {
            throw .unsupportedKey("not a DER SubjectPublicKeyInfo")
        }
        switch algorithmName {
        case "1.2.840.10045.2.1":
            break
        case "1.2.840.113549.1.1.1":
            throw .unsupportedKey("RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        case "1.3.101.112", "1.3.101.113":
            throw .unsupportedKey("Ed25519 and Ed448 keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        default:
            throw .unsupportedKey("key algorithm \(algorithmName) is not supported; server-to-server keys are EC P-256 (prime256v1)")
        }
        guard let curve = algorithmFields.read() else {
            throw .unsupportedKey("the EC key does not name its curve")
        }
        guard curve.tag == DERReader.objectIdentifierTag, let curveName = DERReader.dottedObjectIdentifier(curve.content) else {
            throw .unsupportedKey("EC keys with explicit curve parameters are not supported; use the named curve prime256v1")
        }
        let knownCurves = [
            "1.2.840.10045.3.1.7": "P-256",
            "1.3.132.0.34": "P-384 (secp384r1)",
            "1.3.132.0.35": "P-521 (secp521r1)",
            "1.3.132.0.10": "secp256k1",
        ]
        guard curveName == "1.2.840.10045.3.1.7" else {
            let name = knownCurves[curveName] ?? "with OID \(curveName)"
            throw .unsupportedKey("the key is on curve \(name); server-to-server keys must be on P-256 (prime256v1)")
        }
        // A BIT STRING whose first byte counts the unused bits, which must be none.
        guard let bits = fields.read(tag: DERReader.bitStringTag), fields.isAtEnd,
            bits.first == 0, bits.count > 1
        else {
            throw .unsupportedKey("not a DER SubjectPublicKeyInfo")
        }
        return Array(bits.dropFirst())
    }
}
