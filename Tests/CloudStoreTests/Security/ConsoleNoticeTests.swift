import TestSupport
import Testing

@testable import CloudStore

/// Console notices are sealed by the store (security review N14): only this server's key opens
/// one, for a minute, and nothing sealed for another purpose or altered passes as one.
@Suite struct ConsoleNoticeTests {
    @Test func aSealedNoticeOpensOnceSealedByThisServerOnlyAndOnlyForAMinute() throws {
        let temporary = try TemporaryStore(createContainer: false)
        let store = temporary.store
        let sealed = store.sealConsoleNotice("success.Zone \"Notes\"\u{301} created")
        #expect(store.openConsoleNotice(sealed) == "success.Zone \"Notes\"\u{301} created")

        // Altered anywhere, or not sealed at all, it opens as nothing.
        var bytes = Array(sealed.utf8)
        for index in [0, bytes.count / 2, bytes.count - 1] {
            var altered = bytes
            altered[index] = altered[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(store.openConsoleNotice(String(decoding: altered, as: UTF8.self)) == nil)
        }
        bytes.removeLast()
        #expect(store.openConsoleNotice(String(decoding: bytes, as: UTF8.self)) == nil)
        for forged in ["success.Hello from a sibling site", "success.Hello%20there", "", "AAAA"] {
            #expect(store.openConsoleNotice(forged) == nil)
        }
        // The same payload sealed for another purpose (a sync token's key) is no notice.
        let payload = try #require(store.noticeSigner.open(sealed))
        #expect(store.openConsoleNotice(store.syncTokenSigner.seal(payload)) == nil)
        #expect(store.openConsoleNotice(store.markerSigner.seal(payload)) == nil)

        // A minute later it has expired.
        temporary.clock.advance(by: CloudStore.consoleNoticeLifetime + 1)
        #expect(store.openConsoleNotice(sealed) == nil)
        #expect(store.openConsoleNotice(store.sealConsoleNotice("failure.again")) == "failure.again")
    }

    @Test func aNoticeSealedUnderAnotherSecretDoesNotOpen() throws {
        let one = try TemporaryStore(createContainer: false)
        let other = try TemporaryStore(createContainer: false)
        #expect(other.store.openConsoleNotice(one.store.sealConsoleNotice("success.x")) == nil)
    }
}
