import CloudKitWire
import CloudStore
import Testing

/// Records are written straight into JSON text: the text must be exactly the Record Dictionary
/// CloudKit clients read, for every field type, in both number modes.
@Suite("Record encoder")
struct RecordEncoderTests {
    private let zone = ZoneID(zoneName: "Notes", ownerRecordName: "_owner")
    private let created = RecordStamp(timestamp: 1_700_000_000_000, userRecordName: "_creator", deviceID: "dev-1")
    private let modified = RecordStamp(timestamp: 1_700_000_000_500, userRecordName: "_editor", deviceID: "dev-2")
    private let zoneText = #"{"zoneName":"Notes","ownerRecordName":"_owner","zoneType":"REGULAR_CUSTOM_ZONE"}"#

    private var everyType: Record {
        Record(
            recordName: "R1", recordType: "Note", zoneID: zone,
            fields: [
                "title": .string("a \"quote\"\n"), "count": .int64(-42), "ratio": .double(0.5), "at": .timestamp(1_700_000_000_001),
                "blob": .bytes([1, 2, 3]), "ref": .reference(Reference(recordName: "P", action: .deleteSelf)),
                "other": .reference(Reference(recordName: "Q", zoneID: ZoneID(zoneName: "_defaultZone", ownerRecordName: "_owner"))),
                "file": .asset(Asset(fileChecksum: "abc", size: 3, receipt: "rcpt", downloadURL: "https://h/a/${f}")),
                "where": .location(Location(latitude: 1.5, longitude: -2.25, altitude: 10, timestamp: 7)),
                "tags": .list(.string, [.string("x"), .string("y")]), "nums": .list(.int64, [.int64(1), .int64(2)]),
            ],
            parent: "P", changeTag: "k1", created: created, modified: modified)
    }

    private func text(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) }

    @Test("a record with every field type, numbers as numbers")
    func everyFieldType() {
        let expected =
            #"{"recordName":"R1","recordType":"Note","recordChangeTag":"k1","fields":{"#
            + #""at":{"value":1700000000001,"type":"TIMESTAMP"},"#
            + #""blob":{"value":"AQID","type":"BYTES"},"#
            + #""count":{"value":-42,"type":"INT64"},"#
            + #""file":{"value":{"fileChecksum":"abc","size":3,"receipt":"rcpt","downloadURL":"https://h/a/${f}"},"type":"ASSETID"},"#
            + #""nums":{"value":[1,2],"type":"INT64_LIST"},"#
            + #""other":{"value":{"recordName":"Q","action":"NONE","zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_owner","zoneType":"DEFAULT_ZONE"}},"type":"REFERENCE"},"#
            + #""ratio":{"value":0.5,"type":"DOUBLE"},"#
            + #""ref":{"value":{"recordName":"P","action":"DELETE_SELF"},"type":"REFERENCE"},"#
            + #""tags":{"value":["x","y"],"type":"STRING_LIST"},"#
            + #""title":{"value":"a \"quote\"\n","type":"STRING"},"#
            + #""where":{"value":{"latitude":1.5,"longitude":-2.25,"altitude":10.0,"timestamp":7},"type":"LOCATION"}},"#
            + #""created":{"timestamp":1700000000000,"userRecordName":"_creator","deviceID":"dev-1"},"#
            + #""modified":{"timestamp":1700000000500,"userRecordName":"_editor","deviceID":"dev-2"},"#
            + #""zoneID":\#(zoneText),"parent":{"recordName":"P"},"pluginFields":{}}"#
        #expect(text(RecordEncoder(numbersAsStrings: false).json(everyType)) == expected)
    }

    @Test("numbers as strings: integers, doubles, timestamps, list elements and stamps")
    func numbersAsStrings() throws {
        let value = RecordEncoder(numbersAsStrings: true).json(everyType)
        let fields = try #require(value["fields"])
        #expect(fields["count"]?["value"] == "-42")
        #expect(fields["ratio"]?["value"] == "0.5")
        #expect(fields["at"]?["value"] == "1700000000001")
        #expect(fields["nums"]?["value"] == ["1", "2"])
        #expect(fields["where"]?["value"] == ["latitude": "1.5", "longitude": "-2.25", "altitude": "10.0", "timestamp": "7"])
        #expect(value["created"]?["timestamp"] == "1700000000000")
        // What is not a number stays as it is.
        #expect(fields["title"]?["value"] == "a \"quote\"\n")
    }

    @Test("a page: records without fields, a tombstone, a failure, one zone ID written for all")
    func page() throws {
        var second = everyType
        second.recordName = "R2"
        second.parent = nil
        let results: [RecordResult] = [
            .record(everyType), .deleted(recordName: "R3", zoneID: zone), .failure(recordName: "R4", error: .notFound("R4")),
            .record(second),
        ]
        let page = RecordEncoder(numbersAsStrings: false).array(results) { $0 == 3 ? [] : nil }
        let records = try #require(page.arrayValue)
        try #require(records.count == 4)
        #expect(records[0]["fields"]?["count"]?["value"] == -42)
        #expect(text(records[1]) == #"{"recordName":"R3","deleted":true,"zoneID":\#(zoneText)}"#)
        #expect(records[2]["recordName"] == "R4")
        #expect(records[2]["serverErrorCode"] == "NOT_FOUND")
        // `desiredKeys: []` leaves the fields out and nothing else.
        #expect(records[3]["fields"] == nil)
        #expect(records[3]["recordName"] == "R2")
        #expect(records[3]["parent"] == nil)
        #expect(records[3]["zoneID"] == records[0]["zoneID"])
        // The page is one piece of text, and equal to the same records encoded one by one.
        let oneByOne = RecordEncoder(numbersAsStrings: false)
        #expect(page == .array(results.enumerated().map { oneByOne.json($0.element, desiredKeys: $0.offset == 3 ? [] : nil) }))
        // A whole answer holds the same array, with the members after it only when given.
        let encoder = RecordEncoder(numbersAsStrings: false)
        #expect(encoder.page(results) { $0 == 3 ? [] : nil } == .object(["records": page]))
        #expect(encoder.page([Record](), desiredKeys: nil).serialized() == Array(#"{"records":[]}"#.utf8))
        #expect(
            encoder.page([second], desiredKeys: [], continuationMarker: "m\"1", syncToken: "t").serialized()
                == Array(
                    #"{"records":[\#(text(oneByOne.json(second, withFields: false)))],"continuationMarker":"m\"1","syncToken":"t"}"#.utf8))
    }

    @Test("written text reads, compares and hashes as the value it holds")
    func writtenTextIsAValue() throws {
        let written = FieldValueEncoder().encode(.int64(5))
        let built: JSONValue = ["value": 5, "type": "INT64"]
        #expect(written == built)
        #expect(built == written)
        #expect(written.hashValue == built.hashValue)
        #expect(written != ["value": 6, "type": "INT64"])
        #expect(Set([written, built]).count == 1)
        #expect(written["type"]?.stringValue == "INT64")
        #expect(written.objectValue?.keys == ["value", "type"])
        // Inside a tree it is copied out as it is.
        #expect(text(["field": written]) == #"{"field":{"value":5,"type":"INT64"}}"#)
    }
}
