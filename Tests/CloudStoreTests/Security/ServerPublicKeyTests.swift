import CloudStore
import Crypto
import Foundation
import TestSupport
import Testing

@Suite("Server-to-server public keys")
struct ServerPublicKeyTests {
    private func refusal(_ pem: String) -> String? {
        do {
            _ = try ServerPublicKey(pemRepresentation: pem)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("reads the PEM openssl writes and keeps the point")
    func readsPEM() throws {
        let key = try ServerPublicKey(pemRepresentation: KeyFixtures.p256)
        #expect(key.pemRepresentation.trimmingCharacters(in: .whitespacesAndNewlines) == KeyFixtures.p256)
        #expect(key.derRepresentation.count == 91)
        #expect(key.fingerprint.count == 64)
        #expect(key.fingerprint.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("the fingerprint is SHA-256 of the DER, whatever encoding came in")
    func fingerprint() throws {
        let plain = try ServerPublicKey(pemRepresentation: KeyFixtures.p256)
        let compressed = try ServerPublicKey(pemRepresentation: KeyFixtures.p256Compressed)
        let hex = SHA256.hash(data: plain.derRepresentation).map { String(format: "%02x", $0) }.joined()
        #expect(plain.fingerprint == hex)
        #expect(compressed == plain)
        #expect(compressed.fingerprint == plain.fingerprint)
        #expect(try ServerPublicKey(derRepresentation: plain.derRepresentation) == plain)
        let other = try ServerPublicKey(pemRepresentation: P256.Signing.PrivateKey().publicKey.pemRepresentation)
        #expect(other.fingerprint != plain.fingerprint)
    }

    @Test("tolerates an EC PARAMETERS block, CRLF line ends and surrounding text")
    func tolerantPEM() throws {
        let withParameters = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + KeyFixtures.p256
        let crlf = "Key for the importer:\r\n" + KeyFixtures.p256.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
        let expected = try ServerPublicKey(pemRepresentation: KeyFixtures.p256)
        #expect(try ServerPublicKey(pemRepresentation: withParameters) == expected)
        #expect(try ServerPublicKey(pemRepresentation: crlf) == expected)
    }

    @Test("refuses every other kind of key, saying which")
    func refusals() {
        let curveAdvice = "server-to-server keys must be on P-256 (prime256v1)"
        #expect(refusal(KeyFixtures.p384) == "Unsupported key: the key is on curve P-384 (secp384r1); \(curveAdvice)")
        #expect(refusal(KeyFixtures.secp256k1) == "Unsupported key: the key is on curve secp256k1; \(curveAdvice)")
        #expect(
            refusal(KeyFixtures.ed25519)
                == "Unsupported key: Ed25519 and Ed448 keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        #expect(
            refusal(KeyFixtures.rsaSubjectPublicKeyInfo)
                == "Unsupported key: RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        #expect(
            refusal(KeyFixtures.rsaPKCS1)
                == "Unsupported key: RSA keys are not supported; server-to-server keys are EC P-256 (prime256v1)")
        #expect(
            refusal(KeyFixtures.p256ExplicitParameters)
                == "Unsupported key: EC keys with explicit curve parameters are not supported; use the named curve prime256v1")
        #expect(
            refusal(P256.Signing.PrivateKey().pemRepresentation)
                == "Unsupported key: this is a private key; register its public key instead (openssl ec -in eckey.pem -pubout)")
        #expect(
            refusal("-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----")
                == "Unsupported key: this is a certificate; register the EC P-256 public key itself")
        #expect(refusal("hello") == "Unsupported key: no PEM block found; expected -----BEGIN PUBLIC KEY-----")
        #expect(
            refusal("-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----")
                == "Unsupported key: the PEM text cannot be read (is its base64 damaged?)")
        #expect(
            refusal("-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----")
                == "Unsupported key: not a DER SubjectPublicKeyInfo")
    }

    @Test("refuses a P-256 header around a point that is not on the curve")
    func pointOffCurve() throws {
        var der = try ServerPublicKey(pemRepresentation: KeyFixtures.p256).derRepresentation
        der[der.count - 1] ^= 0x01
        #expect(throws: ServerPublicKey.Unsupported(reason: "the key's point is not a valid P-256 public key")) {
            try ServerPublicKey(derRepresentation: der)
        }
    }

    @Test("truncated or padded DER never traps")
    func truncatedDER() throws {
        let der = try ServerPublicKey(pemRepresentation: KeyFixtures.p256).derRepresentation
        for length in 0..<der.count {
            #expect(throws: ServerPublicKey.Unsupported.self) {
                try ServerPublicKey(derRepresentation: Array(der.prefix(length)))
            }
        }
        #expect(throws: ServerPublicKey.Unsupported(reason: "not a DER SubjectPublicKeyInfo")) {
            try ServerPublicKey(derRepresentation: der + [0])
        }
    }
}
