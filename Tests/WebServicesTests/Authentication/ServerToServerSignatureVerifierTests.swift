import CloudStore
import Crypto
import Foundation
import Testing
import WebServices

@Suite("Server-to-server signature verification")
struct ServerToServerSignatureVerifierTests {
    // The worked example of the reference, section 7.2.
    static let date = "2016-01-25T22:15:43Z"
    static let body = Array(#"{"query":{"recordType":"Articles"}}"#.utf8)
    static let path = "/database/1/iCloud.com.example.MyApp/development/public/records/query"
    static let query = "?ckjsBuildVersion=2310ProjectDev27&ckjsVersion=2.6.4"
    static let signedAt = ServerToServerDate.parse(date)!

    let key = P256.Signing.PrivateKey()
    let verifier = ServerToServerSignatureVerifier()

    /// Signs `text` as a client would, DER or raw, and returns the header value.
    private func sign(_ text: String, raw: Bool = false, with key: P256.Signing.PrivateKey? = nil) throws -> String {
        let signature = try (key ?? self.key).signature(for: Array(text.utf8))
        return (raw ? signature.rawRepresentation : signature.derRepresentation).base64EncodedString()
    }

    private func parts(
        signature: String,
        date: String = date,
        body: [UInt8] = body,
        target: String = path + query
    ) -> SignedRequestParts {
        SignedRequestParts(
            keyID: String(repeating: "a", count: 64), dateHeader: date, signatureHeader: signature,
            body: body, requestTarget: target)
    }

    private func verify(_ parts: SignedRequestParts, now: Date = signedAt) throws(ServerToServerAuthError) {
        try verifier.verify(request: parts, publicKey: key.publicKey, now: now)
    }

    // MARK: - The signed text

    @Test("the message matches the reference vector exactly")
    func referenceVector() {
        #expect(ServerToServerMessage.bodyHash(Self.body) == "myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o=")
        #expect(ServerToServerMessage.bodyHash([]) == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(
            ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
                == "2016-01-25T22:15:43Z:myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o=:/database/1/iCloud.com.example.MyApp/development/public/records/query"
        )
    }

    @Test("the reference request verifies")
    func referenceRequest() throws {
        let text = "2016-01-25T22:15:43Z:myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o=:" + Self.path
        try verify(parts(signature: sign(text), target: Self.path))
    }

    // MARK: - Accepted variants

    @Test("accepts DER and raw signatures over path and query, or the bare path")
    func acceptedVariants() throws {
        let hash = ServerToServerMessage.bodyHash(Self.body)
        for subpath in [Self.path + Self.query, Self.path] {
            for raw in [false, true] {
                let text = ServerToServerMessage.text(date: Self.date, bodyHash: hash, subpath: subpath)
                try verify(parts(signature: sign(text, raw: raw)))
            }
        }
    }

    @Test("accepts an empty body signed by its hash or by an empty string")
    func emptyBody() throws {
        for bodyHash in ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", ""] {
            for subpath in [Self.path + Self.query, Self.path] {
                let text = ServerToServerMessage.text(date: Self.date, bodyHash: bodyHash, subpath: subpath)
                try verify(parts(signature: sign(text), body: []))
            }
        }
    }

    @Test("accepts fractional seconds in the date, signed as sent")
    func fractionalSeconds() throws {
        let date = "2016-01-25T22:15:43.512Z"
        let text = ServerToServerMessage.text(date: date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        try verify(parts(signature: sign(text), date: date))
    }

    @Test("accepts dates anywhere inside the window, both ways")
    func insideWindow() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        let request = try parts(signature: sign(text))
        for offset in [-600.0, -599, -1, 0, 1, 599, 600] {
            try verify(request, now: Self.signedAt.addingTimeInterval(offset))
        }
    }

    @Test("accepts a request target in absolute form")
    func absoluteForm() throws {
        let text = ServerToServerMessage.text(
            date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path + Self.query)
        try verify(parts(signature: sign(text), target: "https://api.apple-cloudkit.com" + Self.path + Self.query))
    }

    @Test("the same signed request verifies again: retries are legitimate")
    func retries() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        let request = try parts(signature: sign(text))
        try verify(request)
        try verify(request, now: Self.signedAt.addingTimeInterval(30))
    }

    @Test("verifies through a registered key and a ServerToServerSigner")
    func signerAndRegisteredKey() throws {
        let signer = ServerToServerSigner(keyID: "k", privateKey: key)
        let headers = try signer.headers(
            body: Self.body, requestTarget: Self.path + Self.query, date: Self.signedAt.addingTimeInterval(0.9))
        #expect(headers.map(\.name) == [ServerToServerHeader.keyID, ServerToServerHeader.date, ServerToServerHeader.signature])
        #expect(headers[1].value == Self.date)
        let lookup = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
        let request = try #require(
            try SignedRequestParts.extract(header: { lookup[$0] }, body: Self.body, requestTarget: Self.path + Self.query))
        let registered = try ServerPublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        try verifier.verify(request: request, publicKey: registered, now: Self.signedAt)
    }

    // MARK: - Refusals

    @Test("refuses a signature made by another key")
    func wrongKey() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        let request = try parts(signature: sign(text, with: P256.Signing.PrivateKey()))
        #expect(throws: ServerToServerAuthError.badSignature) { try verify(request) }
    }

    @Test("refuses a tampered body, path, query or date")
    func tampering() throws {
        let text = ServerToServerMessage.text(
            date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path + Self.query)
        let signature = try sign(text)
        try verify(parts(signature: signature))
        let tampered = [
            parts(signature: signature, body: Array(#"{"query":{"recordType":"Secrets"}}"#.utf8)),
            parts(signature: signature, body: Self.body + [0x20]),
            parts(signature: signature, body: []),
            parts(signature: signature, target: Self.path.replacingOccurrences(of: "public", with: "private") + Self.query),
            parts(signature: signature, target: Self.path + "?ckjsVersion=evil"),
            parts(signature: signature, date: "2016-01-25T22:15:44Z"),
            parts(signature: signature, date: "2016-01-25T22:15:43.000Z"),
        ]
        for request in tampered {
            #expect(throws: ServerToServerAuthError.badSignature) { try verify(request) }
        }
    }

    @Test("the empty-string form is accepted only for an empty body")
    func emptyStringNeedsEmptyBody() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: "", subpath: Self.path)
        #expect(throws: ServerToServerAuthError.badSignature) { try verify(parts(signature: sign(text))) }
    }

    @Test("refuses a stale or future date even with a valid signature")
    func outsideWindow() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        let request = try parts(signature: sign(text))
        // The server's clock is ahead: the request looks stale.
        #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: -601, allowedSeconds: 600)) {
            try verify(request, now: Self.signedAt.addingTimeInterval(601))
        }
        #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: -86_400, allowedSeconds: 600)) {
            try verify(request, now: Self.signedAt.addingTimeInterval(86_400))
        }
        // The server's clock is behind: the request is dated in the future.
        #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: 601, allowedSeconds: 600)) {
            try verify(request, now: Self.signedAt.addingTimeInterval(-601))
        }
        #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: 3600, allowedSeconds: 600)) {
            try verify(request, now: Self.signedAt.addingTimeInterval(-3600))
        }
    }

    @Test("the window is configurable")
    func customWindow() throws {
        let text = ServerToServerMessage.text(date: Self.date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        let request = try parts(signature: sign(text))
        let strict = ServerToServerSignatureVerifier(clockSkew: .seconds(30))
        try strict.verify(request: request, publicKey: key.publicKey, now: Self.signedAt.addingTimeInterval(30))
        #expect(throws: ServerToServerAuthError.dateOutsideWindow(skewSeconds: -31, allowedSeconds: 30)) {
            try strict.verify(request: request, publicKey: key.publicKey, now: Self.signedAt.addingTimeInterval(31))
        }
    }

    @Test(
        "refuses malformed dates",
        arguments: [
            "", "2016-01-25 22:15:43Z", "2016-01-25T22:15:43", "2016-01-25T22:15:43+00:00", "2016-01-25t22:15:43z",
            "2016-13-25T22:15:43Z", "2015-02-29T22:15:43Z", "2016-01-25T24:00:00Z", "2016-01-25T22:60:43Z",
            "2016-01-25T22:15:60Z", "2016-01-25T22:15:43.Z", "2016-01-25T22:15:43.1234567890Z", "1453760143",
            "Mon, 25 Jan 2016 22:15:43 GMT", "２016-01-25T22:15:43Z",
        ])
    func malformedDates(date: String) throws {
        let text = ServerToServerMessage.text(date: date, bodyHash: ServerToServerMessage.bodyHash(Self.body), subpath: Self.path)
        #expect(throws: ServerToServerAuthError.malformedDate) {
            try verify(parts(signature: sign(text), date: date))
        }
    }

    @Test(
        "refuses signatures that are not base64 of an ECDSA signature",
        arguments: [
            "", "not base64!", "AAAA", "MEUCIQ==", String(repeating: "A", count: 88), "MAYCAQACAQ==",
        ])
    func malformedSignatures(signature: String) {
        #expect(throws: ServerToServerAuthError.malformedSignature) { try verify(parts(signature: signature)) }
    }

    @Test("refuses a well-formed signature over something else, or a degenerate one")
    func unrelatedSignature() throws {
        let request = try parts(signature: sign("something else"))
        #expect(throws: ServerToServerAuthError.badSignature) { try verify(request) }
        let raw = try parts(signature: sign("something else", raw: true))
        #expect(throws: ServerToServerAuthError.badSignature) { try verify(raw) }
        // Well-formed DER of r = 0, s = 0, and 64 zero bytes: parsed, never valid.
        #expect(throws: ServerToServerAuthError.badSignature) { try verify(parts(signature: "MAYCAQACAQA=")) }
        let zeros = [UInt8](repeating: 0, count: 64)
        #expect(throws: ServerToServerAuthError.badSignature) {
            try verify(parts(signature: Data(zeros).base64EncodedString()))
        }
    }

    @Test("errors read well")
    func messages() {
        #expect(
            ServerToServerAuthError.missingHeader(ServerToServerHeader.date).description
                == "Missing header X-Apple-CloudKit-Request-ISO8601Date")
        #expect(
            ServerToServerAuthError.dateOutsideWindow(skewSeconds: -700, allowedSeconds: 600).description
                == "The request date is 700 seconds in the past; signed requests must be dated within 600 seconds of the server's clock")
        #expect(
            ServerToServerAuthError.dateOutsideWindow(skewSeconds: 700, allowedSeconds: 600).description
                == "The request date is 700 seconds in the future; signed requests must be dated within 600 seconds of the server's clock")
        #expect(
            ServerToServerAuthError.malformedDate.description
                == "X-Apple-CloudKit-Request-ISO8601Date is not an ISO 8601 UTC date such as 2016-01-25T22:15:43Z")
        #expect(
            ServerToServerAuthError.badSignature.description
                == "The signature does not match the key, date, body and path of the request")
        #expect(
            ServerToServerAuthError.unknownKeyID("abc").description
                == "No server-to-server key with ID 'abc' is registered for this container and environment")
    }
}
