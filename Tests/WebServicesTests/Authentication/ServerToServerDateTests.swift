import Foundation
import TestSupport
import Testing
import WebServices

@Suite("Server-to-server dates")
struct ServerToServerDateTests {
    @Test("reads whole and fractional seconds in UTC")
    func parse() {
        #expect(ServerToServerDate.parse("2016-01-25T22:15:43Z")?.timeIntervalSince1970 == 1_453_760_143)
        #expect(ServerToServerDate.parse("1970-01-01T00:00:00Z")?.timeIntervalSince1970 == 0)
        #expect(ServerToServerDate.parse("2016-01-25T22:15:43.5Z")?.timeIntervalSince1970 == 1_453_760_143.5)
        #expect(ServerToServerDate.parse("2016-01-25T22:15:43.250Z")?.timeIntervalSince1970 == 1_453_760_143.25)
        #expect(ServerToServerDate.parse("2016-01-25T22:15:43.123456789Z") != nil)
        #expect(ServerToServerDate.parse("2016-02-29T00:00:00Z")?.timeIntervalSince1970 == 1_456_704_000)
        #expect(ServerToServerDate.parse("2000-02-29T12:00:00Z")?.timeIntervalSince1970 == 951_825_600)
        #expect(ServerToServerDate.parse("1900-02-29T00:00:00Z") == nil)
        #expect(ServerToServerDate.parse("1969-12-31T23:59:59Z")?.timeIntervalSince1970 == -1)
        #expect(ServerToServerDate.parse("2038-01-19T03:14:08Z")?.timeIntervalSince1970 == 2_147_483_648)
    }

    @Test("agrees with Foundation's ISO 8601 reading on random instants")
    func agreesWithFoundation() {
        var generator = SeededGenerator(seed: 8601)
        let formatter = ISO8601DateFormatter()
        for _ in 0..<2_000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...5_000_000_000, using: &generator))
            let text = formatter.string(from: Date(timeIntervalSince1970: seconds))
            #expect(ServerToServerDate.parse(text)?.timeIntervalSince1970 == seconds, "\(text)")
            #expect(ServerToServerDate.format(Date(timeIntervalSince1970: seconds)) == text)
        }
    }

    @Test("writes whole seconds, rounding down")
    func format() {
        #expect(ServerToServerDate.format(Date(timeIntervalSince1970: 1_453_760_143.999)) == "2016-01-25T22:15:43Z")
        #expect(ServerToServerDate.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
        #expect(ServerToServerDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }
}
