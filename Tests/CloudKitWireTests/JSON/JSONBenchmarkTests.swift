import CloudKitWire
import Foundation
import Testing

/// Throughput of the codec on a typical CloudKit request next to Foundation's
/// `JSONSerialization` in the same run. It prints and asserts only correctness, never time:
/// run it with `swift test -c release --filter JSONBenchmark` for numbers that mean something.
@Suite("JSON benchmark")
struct JSONBenchmarkTests {
    /// A `records/modify` request of about 1.2 KB with one field of every common type.
    static let record = Array(
        #"""
        {"operations":[{"operationType":"create","record":{"recordType":"Artwork","recordName":"4C016E24-C397-4C9D-81D6-DEE3E3A48BB0",\#
        "fields":{"title":{"value":"Starry Night","type":"STRING"},\#
        "artist":{"value":{"recordName":"vangogh","action":"NONE","zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_9a065b60313a5937e75e03ed8e8f383d"}},"type":"REFERENCE"},\#
        "year":{"value":1889,"type":"INT64"},"price":{"value":1.0E8,"type":"DOUBLE"},"created":{"value":1422312944104,"type":"TIMESTAMP"},\#
        "location":{"value":{"latitude":37.33182,"longitude":-122.03118,"horizontalAccuracy":65.0,"altitude":12.5},"type":"LOCATION"},\#
        "tags":{"value":["post-impressionism","night","stars","village"],"type":"STRING_LIST"},\#
        "thumbnail":{"value":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==","type":"BYTES"},\#
        "description":{"value":"Painted in June 1889, it depicts the view from the east-facing window of his asylum room at Saint-R\u00e9my-de-Provence, just before sunrise, with the addition of an imagined village.","type":"STRING"},\#
        "ratings":{"value":[5,4,5,3,5,5],"type":"INT64_LIST"}}},"desiredKeys":["title","year"]}],\#
        "zoneID":{"zoneName":"_defaultZone"},"atomic":true,"numbersAsStrings":false}
        """#.utf8)

    private static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test("parse and serialize a CloudKit record, next to JSONSerialization")
    func throughput() throws {
        let bytes = Self.record
        let parsed = try JSONValue.parse(bytes)
        #expect(parsed["operations"]?[0]?["record"]?["fields"]?["created"]?["value"] == .integer(1_422_312_944_104))
        #expect(try JSONValue.parse(parsed.serialized()) == parsed)

        #if DEBUG
            let iterations = 2_000
            let configuration = "debug build; use -c release for real numbers"
        #else
            let iterations = 50_000
            let configuration = "release build"
        #endif

        var written = 0
        let ours = try Self.seconds {
            for _ in 0..<iterations {
                written &+= try JSONValue.parse(bytes).serialized().count
            }
        }
        let data = Data(bytes)
        let foundation = try Self.seconds {
            for _ in 0..<iterations {
                let object = try JSONSerialization.jsonObject(with: data)
                written &+= try JSONSerialization.data(withJSONObject: object).count
            }
        }
        #expect(written > 0)

        func line(_ name: String, _ seconds: Double) -> String {
            let perSecond = Double(iterations) / seconds
            let megabytes = perSecond * Double(bytes.count) / 1_000_000
            return "\(name): \(Int(perSecond)) parse+serialize/s, \(Int(megabytes)) MB/s"
        }
        print("JSON benchmark (\(bytes.count)-byte record, \(iterations) iterations, \(configuration))")
        print("  " + line("JSONValue        ", ours))
        print("  " + line("JSONSerialization", foundation))
        print("  speed-up: \(String(format: "%.1f", foundation / ours))×")
    }
}
