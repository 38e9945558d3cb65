import CloudStore
import Crypto
import Foundation
import TestSupport
import Testing

@Suite struct CredentialCommandsTests {
    @Test func tokensKeysAndUsersAreCreatedFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let container = "iCloud.com.example.Notes"
        #expect(try CumulusBinary.run(["containers", "create", container, "--data-dir", data]).status == 0)

        let token = try CumulusBinary.run([
            "tokens", "create", "--container", container, "--environment", "production", "--data-dir", data,
            "--allowed-origin", "https://app.example.com", "--sign-in-callback", "https://app.example.com/done",
        ])
        #expect(token.status == 0, "\(token.error)")
        let tokenValue = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tokenValue.count == 64 && tokenValue.allSatisfy(\.isHexDigit))

        let pem = try directory.file("key.pub", P256PublicKeyFixture.pem)
        let key = try CumulusBinary.run(["keys", "add", "--container", container, "--public-key", pem, "--data-dir", data])
        #expect(key.status == 0, "\(key.error)")
        let keyID = key.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(keyID.count == 64)

        let user = try CumulusBinary.run(
            ["users", "add", "--container", container, "alice", "--email", "alice@example.com", "--data-dir", data],
            input: "a long passphrase\n")
        #expect(user.status == 0, "\(user.error)")
        #expect(user.output.hasPrefix("_"))

        let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        let identifier = try ContainerIdentifier(container)
        let stored = try #require(try store.apiToken(tokenValue))
        #expect(stored.environment == .production)
        #expect(stored.allowedOrigins == ["https://app.example.com"])
        #expect(stored.signInCallback == "https://app.example.com/done")
        #expect(try store.serverKey(keyID)?.container == identifier)
        let signedIn = try store.signIn(identifier, .development, name: "alice", password: "a long passphrase")
        #expect(signedIn.user.emailAddress == "alice@example.com")

        let webToken = try CumulusBinary.run(
            ["users", "token", "--container", container, "--environment", "production", "alice", "--data-dir", data],
            input: "a long passphrase\n")
        #expect(webToken.status == 0, "\(webToken.error)")
        let issued = webToken.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try store.session(forWebAuthToken: issued, in: identifier, .production).userRecordName == signedIn.user.userRecordName)
        #expect(
            throws: CloudStoreError.authenticationRequired(
                "The web auth token was issued for production, not development; sign in with an API token of development")
        ) {
            try store.session(forWebAuthToken: issued, in: identifier, .development)
        }
        let wrong = try CumulusBinary.run(["users", "token", "--container", container, "alice", "--data-dir", data], input: "nope\n")
        #expect(wrong.status != 0)
        #expect(wrong.error.contains("Incorrect name or password"))

        let noPassword = try CumulusBinary.run(["users", "add", "--container", container, "bob", "--data-dir", data], input: "")
        #expect(noPassword.status != 0)
        #expect(noPassword.error.contains("password on standard input"))
        let badKey = try CumulusBinary.run([
            "keys", "add", "--container", container, "--public-key", try directory.file("bad.pem", "nonsense"), "--data-dir", data,
        ])
        #expect(badKey.status != 0)
        #expect(badKey.error.contains("no PEM block found"))
    }
}

/// A P-256 public key in PEM form, as `openssl ec -pubout` writes it.
enum P256PublicKeyFixture {
    static let pem = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEE56slro6ZSJdjP1IgXXI4eDEWPK+
        nhHgwotsV6x9GtUmJDpTZ6x6x1H58OmsbpcK3y94v5Z+ja8viDFeiODBIQ==
        -----END PUBLIC KEY-----
        """
}

extension CredentialCommandsTests {
    @Test func keysAddSaysWhatIsWrongWithAKeyThatIsNotOne() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let container = "iCloud.com.example.Keys"
        #expect(try CumulusBinary.run(["containers", "create", container, "--data-dir", data]).status == 0)
        let cases: [(String, String)] = [
            (P256.Signing.PrivateKey().pemRepresentation, "this is a private key; register its public key instead"),
            (KeyFixtures.rsaSubjectPublicKeyInfo, "RSA keys are not supported"),
            (KeyFixtures.p384, "the key is on curve P-384 (secp384r1)"),
            ("not a key at all", "no PEM block found; expected -----BEGIN PUBLIC KEY-----"),
        ]
        for (index, (pem, message)) in cases.enumerated() {
            let file = try directory.file("key\(index).pem", pem)
            let result = try CumulusBinary.run(["keys", "add", "--container", container, "--public-key", file, "--data-dir", data])
            #expect(result.status != 0)
            #expect(result.error.contains(message), "\(result.error)")
        }
        let good = try directory.file("good.pem", KeyFixtures.p256)
        let added = try CumulusBinary.run(["keys", "add", "--container", container, "--public-key", good, "--data-dir", data])
        #expect(added.status == 0)
        let listed = try CumulusBinary.run(["keys", "list", "--container", container, "--data-dir", data])
        let fingerprint = try ServerPublicKey(pemRepresentation: KeyFixtures.p256).fingerprint
        #expect(listed.output.contains("fingerprint \(fingerprint)"))
    }
}

extension CredentialCommandsTests {
    @Test func secretRotateEndsTokensMadeBefore() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let container = "iCloud.com.example.Secret"
        #expect(try CumulusBinary.run(["containers", "create", container, "--data-dir", data]).status == 0)
        #expect(
            try CumulusBinary.run(["users", "add", "--container", container, "alice", "--data-dir", data], input: "a long passphrase\n")
                .status == 0)
        let token = try CumulusBinary.run(
            ["users", "token", "--container", container, "alice", "--data-dir", data], input: "a long passphrase\n"
        )
        .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        #expect(try before.session(forWebAuthToken: token, in: ContainerIdentifier(container), .development).userRecordName.hasPrefix("_"))
        let rotated = try CumulusBinary.run(["secret", "rotate", "--data-dir", data])
        #expect(rotated.status == 0)
        #expect(rotated.output.contains("Rotated the server secret"))
        let after = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        #expect(throws: CloudStoreError.self) {
            try after.session(forWebAuthToken: token, in: ContainerIdentifier(container), .development)
        }
    }
}
