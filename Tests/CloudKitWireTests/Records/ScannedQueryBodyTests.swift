import CloudKitWire
import CloudStore
import TestSupport
import Testing

/// A `records/query` body scanned without a tree reads exactly as its tree does: the same query,
/// the same members around it, the same first error; and whatever the scan takes, the tree
/// parser takes too.
@Suite("Scanned records/query bodies")
struct ScannedQueryBodyTests {
    private static let schema = Schema(recordTypes: [
        RecordTypeDefinition(
            name: "Note",
            fields: [
                FieldDefinition(name: "title", type: .string), FieldDefinition(name: "count", type: .int64),
                FieldDefinition(name: "score", type: .double), FieldDefinition(name: "tags", type: .list(.string)),
                FieldDefinition(name: "when", type: .timestamp), FieldDefinition(name: "place", type: .location),
                FieldDefinition(name: "owner", type: .reference),
            ]),
        RecordTypeDefinition(name: "Other", fields: [FieldDefinition(name: "title", type: .int64)]),
    ])

    /// What a body reads as, every step's outcome apart, in the order the endpoint reads them.
    private struct Reading: Equatable {
        var query: Result<Query, WireError>
        var desiredKeys: Result<[String]?, WireError>
        var zoneName: Result<String?, WireError>
        var zoneWide: Result<Bool?, WireError>
        var resultsLimit: Result<Int?, WireError>
        var continuationMarker: Result<String?, WireError>
        var numbersAsStrings: Result<Bool?, WireError>
    }

    private static func envelopeReading(_ body: WireValue, query: Result<Query, WireError>) -> Reading {
        Reading(
            query: query,
            desiredKeys: Result { () throws(WireError) in try body["desiredKeys"].strings() },
            zoneName: Result { () throws(WireError) in body["zoneID"].isPresent ? try ZoneWire.zoneName(body["zoneID"]) : nil },
            zoneWide: Result { () throws(WireError) in try body["zoneWide"].bool() },
            resultsLimit: Result { () throws(WireError) in try body["resultsLimit"].integer() },
            continuationMarker: Result { () throws(WireError) in try body["continuationMarker"].string() },
            numbersAsStrings: Result { () throws(WireError) in try body.first("numbersAsStrings", "numberAsStrings").bool() })
    }

    /// The tree's reading of a parsed body; `nil` when the body is not a JSON object.
    private static func treeReading(_ bytes: [UInt8]) -> Reading? {
        guard let json = try? JSONValue.parse(bytes), json.objectValue != nil else { return nil }
        let body = WireValue.body(json)
        return envelopeReading(body, query: Result { () throws(WireError) in try QueryDecoder(schema: schema).query(body["query"]) })
    }

    /// Checks one body; returns its reading when it was scanned.
    @discardableResult
    private static func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Reading? {
        guard let scanned = ScannedQueryBody.scan(bytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let tree = treeReading(bytes), let json = try? JSONValue.parse(bytes) else {
            Issue.record("scanned a body the tree refuses: \(text)", sourceLocation: sourceLocation)
            return nil
        }
        var envelope = json.objectValue!
        envelope["query"] = nil
        #expect(scanned.envelope == .object(envelope), "envelope of \(text)", sourceLocation: sourceLocation)
        let reading = envelopeReading(
            WireValue.body(scanned.envelope),
            query: Result { () throws(WireError) in try QueryDecoder(schema: schema).query(scanned.query) })
        #expect(reading == tree, "reading of \(text)", sourceLocation: sourceLocation)
        return reading
    }

    @Test("what clients send is scanned, and reads as its tree")
    func clientBodies() throws {
        let bodies = [
            // CloudKit JS: a typed filter, a sort, a zone, desired keys, a limit.
            #"{"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"count","fieldValue":{"value":"7","type":"INT64"}}],"sortBy":[{"fieldName":"when","ascending":false}]},"zoneID":{"zoneName":"_defaultZone"},"desiredKeys":["title"],"resultsLimit":10,"numbersAsStrings":true}"#,
            // MistKit: system fields, explicit nulls, a continuation marker.
            #"{"query":{"recordType":"Note","filterBy":[{"systemFieldName":"createdTimestamp","comparator":"GREATER_THAN","fieldValue":{"value":1700000000000,"type":null}},{"fieldName":"tags","comparator":"LIST_CONTAINS_ANY","fieldValue":{"value":["a","b"]}}],"sortBy":null},"zoneID":null,"continuationMarker":"abc","zoneWide":false}"#,
            // curl: whitespace, escapes, non-ASCII, a location with a distance, no filters.
            """
            { "query" : { "recordType" : "Note" , "filterBy" : [ { "fieldName" : "place" , "comparator" : "NEAR" ,
              "fieldValue" : { "value" : { "latitude" : 1 , "longitude" : 2.5 } } , "distance" : "100" } ,
              { "fieldName" : "title" , "comparator" : "BEGINS_WITH" , "fieldValue" : { "value" : "caf\\u00e9 é" } } ] } }
            """,
            #"{"query":{"recordType":"Other"}}"#,
            #"{"x":{"y":[1,{"z":null}]},"query":{"recordType":"Note","filterBy":null,"extra":[]}}"#,
        ]
        for body in bodies {
            let reading = Self.expectSameReading(Array(body.utf8))
            #expect(reading != nil, "not scanned: \(body)")
            #expect((try? reading?.query.get()) != nil, "refused: \(body)")
        }
        // The filter value read as its field's type, whichever way it was given.
        let scanned = try #require(ScannedQueryBody.scan(Array(bodies[0].utf8)))
        #expect(try QueryDecoder(schema: Self.schema).query(scanned.query).filters == [QueryFilter(.field("count"), .equals, .int64(7))])
    }

    @Test("bodies scanning leaves to the tree are not scanned")
    func bodiesLeftToTheTree() {
        let bodies = [
            "", "[]", "{}", #"{"query":null}"#, #"{"query":{}}"#, #"{"query":{"recordType":null}}"#, #"{"query":{"recordType":1}}"#,
            #"{"query":{"recordType":"Note"},"query":{"recordType":"Note"}}"#, #"{"query":{"recordType":"Note","recordType":"Note"}}"#,
            #"{"query":{"recordType":"Note","filterBy":{}}}"#, #"{"query":{"recordType":"Note","filterBy":[null]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[],"filterBy":[]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"SAME","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"","comparator":"EQUALS","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"systemFieldName":"nope","comparator":"EQUALS","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS"}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":null}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":null}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":1,"type":2}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":1,"value":2}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":1},"distance":"x"}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"a","fieldName":"b","comparator":"EQUALS","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"NEAR","fieldValue":{"value":1},"distance":1,"distance":null}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"systemFieldName":"recordName","systemFieldName":null,"fieldName":"a","comparator":"EQUALS","fieldValue":{"value":1}}]}}"#,
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":1,"type":"INT64","type":null}}]}}"#,
            #"{"query":{"recordType":"Note","sortBy":[],"sortBy":null}}"#,
            #"{"query":{"recordType":"Note"}} x"#, #"{"query":{"recordType":"\ud800"}}"#,
        ]
        for body in bodies {
            #expect(ScannedQueryBody.scan(Array(body.utf8)) == nil, "scanned: \(body)")
        }
    }

    @Test("a value may nest as deep in a scanned body as in the whole body")
    func nestingLimit() {
        // The filter's value sits inside five containers of the body; 512 in all are allowed.
        func body(valueDepth: Int) -> [UInt8] {
            let value = String(repeating: "[", count: valueDepth) + String(repeating: "]", count: valueDepth)
            return Array(
                #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"tags","comparator":"IN","fieldValue":{"value":\#(value)}}]}}"#
                    .utf8)
        }
        #expect(Self.expectSameReading(body(valueDepth: 507)) != nil)
        #expect(ScannedQueryBody.scan(body(valueDepth: 508)) == nil)
        #expect((try? JSONValue.parse(body(valueDepth: 508))) == nil)
    }

    @Test("random bodies read alike, scanned or not")
    func randomBodies() {
        let (scanned, scannedAfterMutation) = GeneratedJSON.checkGenerated(rounds: 9_000, seed: 0x0E7, body: Self.body) { bytes in
            Self.expectSameReading(bytes)
        }
        let refusedAfterScanning = scanned.filter { if case .failure = $0.query { true } else { false } }
        // Enough of each kind is scanned for the comparison to mean something: bodies read
        // whole, bodies with a filter value refused, and mutated bodies still well formed.
        #expect(scanned.count > 1_000)
        #expect(refusedAfterScanning.count > 150)
        #expect(scannedAfterMutation.count > 150)
    }

    // MARK: - Generated bodies

    private typealias Doc = GeneratedJSON

    private static func pick<T>(_ choices: [T], _ generator: inout SeededGenerator) -> T { choices.randomElement(using: &generator)! }

    private static let odd: [Doc] = [.raw("null"), .raw("1"), .raw(#""x""#), .array([]), .object([])]

    /// Members, sometimes one repeated or an unknown one added, in a random order.
    private static func members(_ members: [(String, Doc)], _ generator: inout SeededGenerator) -> Doc {
        GeneratedJSON.shuffledObject(members, repeatOneIn: 25, other: { pick(odd, &$0) }, using: &generator)
    }

    private static func body(_ generator: inout SeededGenerator) -> Doc {
        var body: [(String, Doc)] = []
        if Int.random(in: 0..<20, using: &generator) > 0 { body.append(("query", query(&generator))) }
        if Bool.random(using: &generator) {
            body.append(
                (
                    "zoneID",
                    pick(
                        [
                            .object([("zoneName", .raw(#""_defaultZone""#))]), .object([("zoneName", .raw(#""""#))]), .raw("null"),
                            .raw("5"),
                        ], &generator)
                ))
        }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            body.append(("desiredKeys", pick([.array([]), .array([.raw(#""title""#)]), .raw("null"), .array([.raw("1")])], &generator)))
        }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            body.append(("resultsLimit", .raw(pick(["1", #""20""#, "null", "1.5", #""x""#], &generator))))
        }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            body.append(("continuationMarker", .raw(pick([#""m""#, "null", "3"], &generator))))
        }
        if Int.random(in: 0..<4, using: &generator) == 0 { body.append(("zoneWide", .raw(pick(["true", "null", #""x""#], &generator)))) }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            body.append(
                (pick(["numbersAsStrings", "numberAsStrings"], &generator), pick([.raw("true"), .raw("null"), .raw("2")], &generator)))
        }
        return members(body, &generator)
    }

    private static func query(_ generator: inout SeededGenerator) -> Doc {
        if Int.random(in: 0..<30, using: &generator) == 0 { return pick(odd, &generator) }
        var query: [(String, Doc)] = []
        if Int.random(in: 0..<15, using: &generator) > 0 {
            query.append(("recordType", .raw(pick([#""Note""#, #""Note""#, #""Other""#, #""Missing""#, "null", "4"], &generator))))
        }
        if Int.random(in: 0..<6, using: &generator) > 0 {
            query.append(
                (
                    "filterBy",
                    Int.random(in: 0..<25, using: &generator) == 0
                        ? pick(odd, &generator) : .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in filter(&generator) })
                ))
        }
        if Int.random(in: 0..<4, using: &generator) == 0 { query.append(("sortBy", sortBy(&generator))) }
        return members(query, &generator)
    }

    private static func filter(_ generator: inout SeededGenerator) -> Doc {
        if Int.random(in: 0..<30, using: &generator) == 0 { return pick(odd, &generator) }
        var filter: [(String, Doc)] = []
        if Int.random(in: 0..<15, using: &generator) > 0 {
            let comparators = [
                "EQUALS", "NOT_EQUALS", "LESS_THAN", "GREATER_THAN_OR_EQUALS", "NEAR", "IN", "NOT_IN", "BEGINS_WITH",
                "LIST_CONTAINS", "LIST_CONTAINS_ANY", "LIST_MEMBER_BEGINS_WITH", "CONTAINS_ALL_TOKENS",
            ].map { #""\#($0)""# }
            filter.append(
                (
                    "comparator",
                    .raw(pick(Int.random(in: 0..<20, using: &generator) == 0 ? [#""SAME""#, "null", "3"] : comparators, &generator))
                ))
        }
        if Int.random(in: 0..<8, using: &generator) == 0 {
            filter.append(
                (
                    "systemFieldName",
                    .raw(
                        pick(
                            [#""recordName""#, #""createdTimestamp""#, #""___createTime""#, #""modifiedBy""#, #""nope""#, "null", "1"],
                            &generator))
                ))
        }
        if Int.random(in: 0..<12, using: &generator) > 0 {
            filter.append(
                (
                    "fieldName",
                    .raw(
                        pick(
                            [
                                #""title""#, #""count""#, #""score""#, #""tags""#, #""when""#, #""place""#, #""owner""#, #""other""#,
                                #""""#, "null", "5",
                            ], &generator))
                ))
        }
        if Int.random(in: 0..<15, using: &generator) > 0 { filter.append(("fieldValue", fieldValue(&generator))) }
        if Int.random(in: 0..<6, using: &generator) == 0 {
            filter.append(("distance", .raw(pick(["100", "1.5", #""2""#, "null", #""x""#, "true"], &generator))))
        }
        return members(filter, &generator)
    }

    private static func fieldValue(_ generator: inout SeededGenerator) -> Doc {
        if Int.random(in: 0..<25, using: &generator) == 0 { return pick(odd, &generator) }
        var field: [(String, Doc)] = []
        if Int.random(in: 0..<12, using: &generator) > 0 { field.append(("value", GeneratedJSON.fieldValue(using: &generator))) }
        if Bool.random(using: &generator) {
            let hints = [
                #""STRING""#, #""INT64""#, #""DOUBLE""#, #""TIMESTAMP""#, #""REFERENCE""#, #""LOCATION""#, #""STRING_LIST""#, #""bogus""#,
                "null", "5",
            ]
            field.append(("type", .raw(pick(hints, &generator))))
        }
        return members(field, &generator)
    }

    private static func sortBy(_ generator: inout SeededGenerator) -> Doc {
        if Int.random(in: 0..<6, using: &generator) == 0 { return pick(odd, &generator) }
        return .array(
            (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                var sort: [(String, Doc)] = [("fieldName", .raw(pick([#""when""#, #""count""#, #""""#, "null"], &generator)))]
                if Bool.random(using: &generator) {
                    sort.append(("ascending", .raw(pick(["true", "false", "null", #""x""#], &generator))))
                }
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    sort.append(
                        ("relativeLocation", pick([.object([("latitude", .raw("1")), ("longitude", .raw("2"))]), .raw("5")], &generator)))
                }
                return members(sort, &generator)
            })
    }
}
