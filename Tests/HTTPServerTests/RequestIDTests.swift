import Testing

@testable import HTTPServer

/// Request ids: the loop's random prefix and a counter in hex, or an acceptable id the client sent.
@Suite struct RequestIDTests {
    @Test func idsAreThePrefixAndTheCounterInHex() throws {
        var generator = RequestIDGenerator(loopIndex: 3)
        let first = generator.id(reusing: nil)
        let prefix = try #require(first.split(separator: "-").first.map { String($0) + "-" })
        #expect(prefix.hasSuffix("3-") && first == prefix + "1")
        var ids = [first]
        for _ in 2...70_000 { ids.append(generator.id(reusing: nil)) }
        for counter in [2, 15, 16, 255, 256, 4_096, 65_535, 65_536, 70_000] {
            #expect(ids[counter - 1] == prefix + String(counter, radix: 16))
        }
        #expect(Set(ids).count == ids.count)
        #expect(generator.id(reusing: "client-id_1.2:3") == "client-id_1.2:3")
        #expect(generator.id(reusing: "not acceptable") == prefix + String(70_001, radix: 16))
    }
}
