import CloudKitWire
import CloudStore
import Crypto
import Foundation
import Testing
import WebServices

/// Python with the `cryptography` package, which signs the way third-party clients do.
enum PythonSigner {
    /// `Tests/python/sign_fixture.py`, found from this file's place in the package.
    static let fixtureScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("python/sign_fixture.py")

    /// Whether `python3` runs here and can import `cryptography`.
    static let isAvailable: Bool = (try? run(["-c", "import cryptography"])) != nil

    /// Runs `python3` with `arguments` and returns its standard output; throws on failure.
    static func run(_ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "python3 exited with \(process.terminationStatus)"])
        }
        return Array(data)
    }
}

@Suite("Server-to-server signatures from Python's cryptography")
struct CrossImplementationTests {
    @Test(
        "accepts what Python signs and refuses what was tampered with",
        .enabled(
            if: PythonSigner.isAvailable,
            "python3 with the cryptography package is not installed (pip install -r Tests/python/requirements.txt)")
    )
    func pythonSignatures() throws {
        let fixture = try JSONValue.parse(PythonSigner.run([PythonSigner.fixtureScript.path]))
        let key = try ServerPublicKey(pemRepresentation: try #require(fixture["publicKeyPEM"]?.stringValue))
        let now = try #require(fixture["verifyAt"]?.stringValue.flatMap(ServerToServerDate.parse))
        let cases = try #require(fixture["cases"]?.arrayValue)
        #expect(cases.count >= 15)
        let verifier = ServerToServerSignatureVerifier()

        var accepted = 0
        var refused = 0
        for sample in cases {
            let name = sample["name"]?.stringValue ?? "?"
            let body = try #require(sample["bodyBase64"]?.stringValue.flatMap { Data(base64Encoded: $0) })
            let request = SignedRequestParts(
                keyID: try #require(sample["keyID"]?.stringValue),
                dateHeader: try #require(sample["dateHeader"]?.stringValue),
                signatureHeader: try #require(sample["signatureHeader"]?.stringValue),
                body: Array(body),
                requestTarget: try #require(sample["requestTarget"]?.stringValue))

            if sample["accept"] == true {
                // The text Python signed is one of those the verifier rebuilds.
                let hashes = [ServerToServerMessage.bodyHash(request.body)] + (request.body.isEmpty ? [""] : [])
                let rebuilt = request.signedSubpathCandidates.flatMap { subpath in
                    hashes.map { ServerToServerMessage.text(date: request.dateHeader, bodyHash: $0, subpath: subpath) }
                }
                #expect(rebuilt.contains(sample["message"]?.stringValue ?? ""), "\(name)")
                #expect(throws: Never.self, "\(name)") {
                    try verifier.verify(request: request, publicKey: key, now: now)
                }
                // Any change to what was signed breaks it.
                var tampered = request
                tampered.body.append(UInt8(ascii: " "))
                #expect(throws: ServerToServerAuthError.badSignature, "\(name), body changed") {
                    try verifier.verify(request: tampered, publicKey: key, now: now)
                }
                #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: -601, allowedSeconds: 600), "\(name), stale") {
                    try verifier.verify(request: request, publicKey: key, now: now.addingTimeInterval(601))
                }
                accepted += 1
            } else {
                #expect(throws: ServerToServerAuthError.badSignature, "\(name)") {
                    try verifier.verify(request: request, publicKey: key, now: now)
                }
                refused += 1
            }
        }
        #expect(accepted >= 8)
        #expect(refused >= 5)
    }
}
