import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The data directory is the owner's alone, and the server secret's uses never mix.
@Suite struct SecretAndFilesTests {
    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test(.enabled(if: TestBackend.isSQLite, "About the SQLite files in the data directory"))
    func aNewDataDirectoryAndEveryFileInItAreTheOwnersAlone() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        for index in 0..<20 { try database.create("Note", "n\(index)", ["t": .string("x")]) }
        _ = try store.store.addUser(store.container, name: "alice", password: "a long password")
        #expect(try mode(store.directory) == 0o700)
        var files: [String] = []
        for case let relative as String in FileManager.default.enumerator(atPath: store.directory)! {
            let path = store.directory + "/" + relative
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            #expect(try mode(path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(relative)")
            files.append(relative)
        }
        #expect(files.contains("cumulus.sqlite"))
        #expect(files.contains { $0.hasSuffix("development.sqlite-wal") })
        #expect(store.store.permissionWarnings().isEmpty)
    }

    @Test func aDirectoryOthersCanReadIsReported() throws {
        let store = try TemporaryStore()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.directory)
        let warnings = store.store.permissionWarnings()
        #expect(warnings.first == "\(store.directory) is accessible to others (mode 755)")
        #expect(warnings.last?.contains("chmod -R go-rwx \(store.directory)") == true)
    }

    @Test func eachUseOfTheSecretHasItsOwnKey() throws {
        let secret = SecureToken.randomBytes(32)
        let markers = OpaqueTokenSigner(secret: secret, purpose: .continuationMarker)
        let tokens = OpaqueTokenSigner(secret: secret, purpose: .syncToken)
        let sealed = markers.seal([1, 2, 3])
        #expect(markers.open(sealed) == [1, 2, 3])
        #expect(tokens.open(sealed) == nil)
        #expect(markers.open(tokens.seal([1, 2, 3])) == nil)
        // Sealed with the raw secret, as before keys were derived: refused.
        let raw = HMACSeal.seal([1, 2, 3], secret: secret)
        #expect(markers.open(raw) == nil)
        #expect(tokens.open(raw) == nil)
    }

    @Test func rotatingTheSecretEndsTokensAndMarkersButKeepsEverythingElse() throws {
        let store = try TemporaryStore()
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator" );
            """)
        for index in 0..<3 { try store.database().create("Note", "n\(index)") }
        try store.store.addUser(store.container, name: "alice", password: "a long password")
        let token = try store.store.signIn(store.container, .development, name: "alice", password: "a long password").webAuthToken
        let page = try store.database().query(QueryRequest(query: Query(recordType: "Note"), resultsLimit: 1))
        let marker = try #require(page.continuationMarker)

        try store.store.rotateSecret()
        let clock = store.clock
        var configuration = store.store.configuration
        configuration.clock = { clock.tick() }
        let restarted = try CloudStore(configuration: configuration)
        #expect(throws: CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")) {
            try restarted.session(forWebAuthToken: token, in: store.container, .development)
        }
        let database = try restarted.database(store.container, .development, .public, as: .operator())
        #expect(throws: CloudStoreError.badRequest("The continuation marker is not valid")) {
            try database.query(QueryRequest(query: Query(recordType: "Note"), resultsLimit: 1, continuationMarker: marker))
        }
        #expect(try database.query(QueryRequest(query: Query(recordType: "Note"))).records.count == 3)
        let again = try restarted.signIn(store.container, .development, name: "alice", password: "a long password").webAuthToken
        #expect(try restarted.session(forWebAuthToken: again, in: store.container, .development).userRecordName.hasPrefix("_"))
    }
}

/// An HMAC seal under the raw secret, the way values were sealed before each use had its key.
private enum HMACSeal {
    static func seal(_ payload: [UInt8], secret: [UInt8]) -> String {
        let tag = Array(HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: secret))).prefix(16)
        return Base64URL.encode(payload + tag)
    }
}
