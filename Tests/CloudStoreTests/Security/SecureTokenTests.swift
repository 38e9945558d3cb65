import CloudStore
import Foundation
import Testing

@Suite("Secure tokens")
struct SecureTokenTests {
    private static let lowercaseHex = Set("0123456789abcdef")
    private static let webAuthAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_")

    @Test("hex tokens are 64 lowercase hex characters by default")
    func hex() {
        let token = SecureToken.hex()
        #expect(token.count == 64)
        #expect(token.allSatisfy(Self.lowercaseHex.contains))
        #expect(SecureToken.hex(bytes: 4).count == 8)
        #expect(SecureToken.hex(bytes: 0) == "")
    }

    @Test("web auth tokens have CloudKit's shape")
    func webAuthToken() {
        let token = SecureToken.webAuthToken()
        #expect(token.count == 105)
        #expect(token.count >= 100)
        #expect(token.hasPrefix("158__54__"))
        #expect(token.allSatisfy(Self.webAuthAlphabet.contains))
    }

    @Test("user record names are an underscore and 32 lowercase hex characters")
    func userRecordName() {
        let name = SecureToken.userRecordName()
        #expect(name.count == 33)
        #expect(name.first == "_")
        #expect(name.dropFirst().allSatisfy(Self.lowercaseHex.contains))
    }

    @Test("generated record names are lowercase version 7 UUIDs, all different, in time order")
    func recordName() throws {
        let start: Int64 = 1_763_800_000_000
        let names = (0..<1_000).map { SecureToken.recordName(at: start + Int64($0)) }
        #expect(Set(names).count == names.count)
        #expect(names == names.sorted())
        for name in names {
            let parsed = try #require(UUID(uuidString: name), "\(name) is not a UUID")
            #expect(parsed.uuidString.lowercased() == name)
            let parts = name.split(separator: "-")
            #expect(parts.map(\.count) == [8, 4, 4, 4, 12])
            #expect(parts[2].first == "7")
            #expect("89ab".contains(parts[3].first!))
        }
        // The first 48 bits are the time in milliseconds.
        #expect(SecureToken.recordName(at: 0x0123_4567_89AB).hasPrefix("01234567-89ab-7"))
        let sameTime = (0..<100).map { _ in SecureToken.recordName(at: start) }
        #expect(Set(sameTime).count == 100)
    }

    @Test("random bytes have the requested length")
    func randomBytes() {
        for count in [0, 1, 7, 8, 9, 16, 33, 1000] {
            #expect(SecureToken.randomBytes(count).count == count)
        }
    }

    @Test("tokens do not repeat")
    func uniqueness() {
        let count = 10_000
        #expect(Set((0..<count).map { _ in SecureToken.hex() }).count == count)
        #expect(Set((0..<count).map { _ in SecureToken.webAuthToken() }).count == count)
        #expect(Set((0..<count).map { _ in SecureToken.userRecordName() }).count == count)
    }

    @Test("random bytes are not biased")
    func distribution() {
        // 256 000 bytes: each value expected 1000 times; a working generator stays far
        // inside these bounds (the standard deviation is about 32).
        var counts = [Int](repeating: 0, count: 256)
        for byte in SecureToken.randomBytes(256_000) {
            counts[Int(byte)] += 1
        }
        #expect(counts.min()! > 800)
        #expect(counts.max()! < 1200)
    }

    @Test("small draws, through each thread's pool, are not biased and never repeat")
    func pooledDraws() async {
        // Draws of every pooled size, so that pools run dry part way through a draw.
        var counts = [Int](repeating: 0, count: 256)
        var drawn = 0
        var size = 1
        while drawn < 256_000 {
            let count = min(size, 256_000 - drawn)
            for byte in SecureToken.randomBytes(count) { counts[Int(byte)] += 1 }
            drawn += count
            size = size % 64 + 1
        }
        #expect(counts.min()! > 800)
        #expect(counts.max()! < 1200)

        // Eight threads at once, 5,000 sixteen-byte draws each: 40,000 different values.
        let draws = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<5_000).map { _ in SecureToken.randomBytes(16) } }
            }
            var all: [[UInt8]] = []
            for await some in group { all += some }
            return all
        }
        #expect(draws.count == 40_000)
        #expect(Set(draws).count == 40_000)
    }

    @Test("constant-time comparison gives the ordinary answer")
    func constantTimeEquals() {
        #expect(SecureToken.constantTimeEquals("abc", "abc"))
        #expect(SecureToken.constantTimeEquals("", ""))
        #expect(!SecureToken.constantTimeEquals("abc", "abd"))
        #expect(!SecureToken.constantTimeEquals("abc", "ab"))
        #expect(!SecureToken.constantTimeEquals("ab", "abc"))
        #expect(!SecureToken.constantTimeEquals("", "a"))
        #expect(!SecureToken.constantTimeEquals("abc\u{0}", "abc"))
        #expect(SecureToken.constantTimeEquals("café", "café"))
        // Byte equality, not Unicode equivalence: é composed and decomposed differ.
        #expect(!SecureToken.constantTimeEquals("caf\u{E9}", "cafe\u{301}"))
        #expect(SecureToken.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!SecureToken.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        let token = SecureToken.hex()
        #expect(SecureToken.constantTimeEquals(token, String(token)))
    }
}
