import Testing

@testable import CloudStore

@Suite struct RecordPayloadCodecTests {
    @Test func everyFieldTypeRoundTrips() throws {
        let fields: [String: FieldValue] = [
            "s": .string("héllo ✓"), "i": .int64(.min), "j": .int64(.max), "d": .double(-0.000_123), "t": .timestamp(-1),
            "b": .bytes([0, 255, 7]), "e": .bytes([]),
            "r": .reference(Reference(recordName: "x", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), action: .deleteSelf)),
            "a": .asset(Asset(fileChecksum: "abc", size: 12, receipt: "r", downloadURL: "https://h/${f}")),
            "l": .location(Location(latitude: 1.5, longitude: -2.25, horizontalAccuracy: 3, altitude: 9, timestamp: 77)),
            "sl": .list(.string, [.string("a"), .string("")]), "el": .list(.int64, []),
            "rl": .list(.reference, [.reference(Reference(recordName: "y", action: .validate))]),
        ]
        #expect(try RecordPayloadCodec.decode(RecordPayloadCodec.encode(fields)) == fields)
    }

    @Test func damagedPayloadsAreRefusedNotTrusted() {
        let good = RecordPayloadCodec.encode(["s": .string("hello"), "l": .list(.int64, [.int64(1), .int64(2)])])
        for length in 0..<good.count {
            #expect(throws: CloudStoreError.self) { try RecordPayloadCodec.decode(Array(good.prefix(length))) }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var bytes = good
            bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            _ = try? RecordPayloadCodec.decode(bytes)
        }
        #expect(throws: CloudStoreError.self) {
            try RecordPayloadCodec.decode([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        }
    }
}
