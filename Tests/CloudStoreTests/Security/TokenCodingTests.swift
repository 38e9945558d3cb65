import Crypto
import Foundation
import Testing

@testable import CloudStore

/// Tokens are minted and opened on bytes (own base64 and hex, a prepared HMAC, one getrandom
/// call): tokens issued before that change must still open, and new ones must open as the old
/// code opened them, through Foundation's base64 and a fresh HMAC.
@Suite("Token coding")
struct TokenCodingTests {
    private let secret = [UInt8](repeating: 7, count: 32)

    /// Sealed under `secret` by the build before the change.
    private let oldWebAuthToken =
        "1__32__ARAAESIzRFVmd4iZqrvM3e7/gKCr/vliUhI6XCs1ffFLEnh30V9tOMk3UAwRH73X5/EzB8dOurchEjF0hMzHOb3CgSvr9M7p0g=="
    private let oldSyncToken = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJ7VHnufzByh5FJiQXWC2kSQ"
    private let oldMarker = "__4AAT4_VL_-lg1JuX4D_kWWTa8aCQ"

    @Test("tokens sealed before the change still open, to the same values")
    func oldTokensOpen() throws {
        let token = try #require(WebAuthToken.decode(oldWebAuthToken, with: WebAuthToken.key(from: secret)))
        #expect(token.sessionID == "00112233445566778899aabbccddeeff")
        #expect(token.issued == 1_700_000_000_000)
        #expect(OpaqueTokenSigner(secret: secret, purpose: .syncToken).open(oldSyncToken) == Array(0..<40))
        #expect(OpaqueTokenSigner(secret: secret, purpose: .continuationMarker).open(oldMarker) == [255, 254, 0, 1, 62, 63])
        // Each purpose keeps its own key: a sync token is no continuation marker.
        #expect(OpaqueTokenSigner(secret: secret, purpose: .continuationMarker).open(oldSyncToken) == nil)
        #expect(WebAuthToken.decode(oldWebAuthToken, with: WebAuthToken.key(from: [UInt8](repeating: 8, count: 32))) == nil)
    }

    @Test("new web auth tokens open the way the code before the change opened them")
    func newTokensOpenAsBefore() throws {
        let text = WebAuthToken(sessionID: "ffeeddccbbaa99887766554433221100", issued: 1_800_000_000_123).encoded(
            with: WebAuthToken.key(from: secret))
        #expect(text.hasPrefix("1__32__") && text.hasSuffix("="))
        let bytes = try #require(Data(base64Encoded: String(text.dropFirst(7))).map(Array.init))
        let key = OpaqueTokenSigner.derivedKey(secret: secret, label: "cumulus web auth tokens")
        #expect(Array(bytes.suffix(32)) == Array(HMAC<SHA256>.authenticationCode(for: Array(bytes.dropLast(32)), using: key)))
        let opened = try #require(WebAuthToken.decode(text, with: WebAuthToken.key(from: secret)))
        #expect(opened == WebAuthToken(sessionID: "ffeeddccbbaa99887766554433221100", issued: 1_800_000_000_123))
        // Two tokens of one session differ by their nonce.
        #expect(text != WebAuthToken(sessionID: opened.sessionID, issued: opened.issued).encoded(with: WebAuthToken.key(from: secret)))
        // One bit changed anywhere is refused.
        var tampered = Array(text.utf8)
        tampered[40] = tampered[40] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(WebAuthToken.decode(String(decoding: tampered, as: UTF8.self), with: WebAuthToken.key(from: secret)) == nil)
    }

    @Test("base64 equals Foundation's, both alphabets, every length up to 70")
    func base64MatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes, .standard) == foundation)
            let url = foundation.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64.encode(bytes, .url) == url)
            #expect(Base64.decode(foundation, .standard) == bytes)
            #expect(Base64.decode(url, .url) == bytes)
        }
    }

    @Test(
        "malformed base64 is refused",
        arguments: [
            ("A", Base64.Alphabet.standard), ("AB", .standard), ("AB=", .standard), ("A===", .standard), ("AB=C", .standard),
            ("AB-_", .standard), ("AB+/", .url), ("ABCDE", .url), ("AB==", .url), ("AB\u{e9}D", .standard), ("AR==", .standard),
        ])
    func malformedBase64(text: String, alphabet: Base64.Alphabet) {
        #expect(Base64.decode(text, alphabet) == nil)
    }

    @Test("hex both ways")
    func hex() {
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(SecureToken.hexString(bytes) == "00017f80abff")
        #expect(SecureToken.bytes(fromHex: "00017f80abff") == bytes)
        #expect(SecureToken.bytes(fromHex: "00017F80ABFF") == bytes)
        #expect(SecureToken.bytes(fromHex: "0") == nil)
        #expect(SecureToken.bytes(fromHex: "0g") == nil)
        #expect(SecureToken.bytes(fromHex: "+1") == nil)
        #expect(SecureToken.bytes(fromHex: "") == [])
    }

    @Test("random bytes: the length asked, past one call's 256-byte chunk too, and never the same twice")
    func randomBytes() {
        for count in [0, 1, 8, 17, 300] {
            #expect(SecureToken.randomBytes(count).count == count)
        }
        let first = SecureToken.randomBytes(32)
        #expect(first != SecureToken.randomBytes(32))
        #expect(first.contains { $0 != 0 })
        #expect(Set((0..<100).map { _ in SecureToken.hex(bytes: 16) }).count == 100)
    }
}
