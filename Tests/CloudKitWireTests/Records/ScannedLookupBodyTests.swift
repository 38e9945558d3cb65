import CloudKitWire
import CloudStore
import TestSupport
import Testing

/// A `records/lookup` body scanned without a tree reads exactly as its tree does: the same
/// lookups, the same members around them, the same first error; and whatever the scan takes,
/// the tree parser takes too.
@Suite("Scanned records/lookup bodies")
struct ScannedLookupBodyTests {
    /// What a body reads as, each step's outcome apart, in the order the endpoint reads them.
    private struct Reading: Equatable {
        var desiredKeys: Result<[String]?, WireError>
        var lookups: Result<[RecordLookup], WireError>
        var zoneName: Result<String, WireError>
        var numbersAsStrings: Result<Bool?, WireError>
    }

    private static func envelopeReading(_ body: WireValue, lookups: Result<[RecordLookup], WireError>) -> Reading {
        Reading(
            desiredKeys: Result { () throws(WireError) in try body["desiredKeys"].strings() }, lookups: lookups,
            zoneName: Result { () throws(WireError) in try ZoneWire.zoneName(body["zoneID"]) },
            numbersAsStrings: Result { () throws(WireError) in try body.first("numbersAsStrings", "numberAsStrings").bool() })
    }

    /// The tree's reading of a parsed body; `nil` when the body is not a JSON object.
    private static func treeReading(_ bytes: [UInt8]) -> Reading? {
        guard let json = try? JSONValue.parse(bytes), json.objectValue != nil else { return nil }
        let body = WireValue.body(json)
        return envelopeReading(body, lookups: Result { () throws(WireError) in try RecordsExchange.lookups(body) })
    }

    /// Checks one body; returns whether it was scanned.
    @discardableResult
    private static func expectSameReading(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let scanned = ScannedLookupBody.scan(bytes) else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let tree = treeReading(bytes), let json = try? JSONValue.parse(bytes) else {
            Issue.record("scanned a body the tree refuses: \(text)", sourceLocation: sourceLocation)
            return true
        }
        var envelope = json.objectValue!
        envelope["records"] = nil
        #expect(scanned.envelope == .object(envelope), "envelope of \(text)", sourceLocation: sourceLocation)
        #expect(
            envelopeReading(WireValue.body(scanned.envelope), lookups: .success(scanned.lookups)) == tree,
            "reading of \(text)", sourceLocation: sourceLocation)
        return true
    }

    @Test("what clients send is scanned, and reads as its tree")
    func clientBodies() {
        let bodies = [
            #"{"records":[{"recordName":"a"}],"zoneID":{"zoneName":"_defaultZone"},"desiredKeys":["title"],"numbersAsStrings":true}"#,
            #"{"records":["a","b\u00e9",{"recordName":"c","desiredKeys":["x"]},{"recordName":"d","desiredKeys":null,"extra":[1]}]}"#,
            " { \"zoneID\" : null , \"records\" : [ ] } ",
        ]
        for body in bodies {
            #expect(Self.expectSameReading(Array(body.utf8)), "not scanned: \(body)")
        }
    }

    @Test("bodies scanning leaves to the tree are not scanned")
    func bodiesLeftToTheTree() {
        let bodies = [
            "", "{}", #"{"records":null}"#, #"{"records":[null]}"#, #"{"records":[1]}"#, #"{"records":[{}]}"#,
            #"{"records":[{"recordName":null}]}"#, #"{"records":[{"recordName":"a","recordName":"b"}]}"#,
            #"{"records":[{"recordName":"a","desiredKeys":[2]}]}"#, #"{"records":[],"records":[]}"#,
            #"{"records":["a",]}"#, #"{"records":["\ud800"]}"#, #"{"records":[]}]"#,
        ]
        for body in bodies {
            #expect(ScannedLookupBody.scan(Array(body.utf8)) == nil, "scanned: \(body)")
        }
    }

    @Test("random bodies read alike, scanned or not")
    func randomBodies() {
        let (scanned, scannedAfterMutation) = GeneratedJSON.checkGenerated(rounds: 6_000, seed: 0x10C4, body: Self.body) { bytes in
            Self.expectSameReading(bytes) ? true : nil
        }
        // Enough is scanned for the comparison to mean something.
        #expect(scanned.count > 1_000)
        #expect(scannedAfterMutation.count > 100)
    }

    // MARK: - Generated bodies

    private static func pick<T>(_ choices: [T], _ generator: inout SeededGenerator) -> T { choices.randomElement(using: &generator)! }

    private static let values: [GeneratedJSON] = [
        .raw(#""a""#), .raw(#""é\n""#), .raw("null"), .raw("1"), .raw("true"), .array([]), .array([.raw(#""title""#)]),
        .array([.raw("2")]), .object([]), .object([("zoneName", .raw(#""Z""#))]), .object([("zoneName", .raw(#""""#))]),
    ]

    private static func members(_ members: [(String, GeneratedJSON)], _ generator: inout SeededGenerator) -> GeneratedJSON {
        GeneratedJSON.shuffledObject(members, repeatOneIn: 15, other: { pick(values, &$0) }, using: &generator)
    }

    private static func body(_ generator: inout SeededGenerator) -> GeneratedJSON {
        var body: [(String, GeneratedJSON)] = []
        if Int.random(in: 0..<15, using: &generator) > 0 {
            body.append(("records", .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in entry(&generator) })))
        }
        if Bool.random(using: &generator) {
            body.append(
                (
                    "zoneID",
                    pick(
                        [
                            .object([("zoneName", .raw(#""_defaultZone""#))]), .raw("null"), .raw("3"),
                            .object([("zoneName", .raw(#""""#))]),
                        ], &generator)
                ))
        }
        if Bool.random(using: &generator) {
            body.append(
                (
                    "desiredKeys",
                    pick([.array([]), .array([.raw(#""title""#)]), .raw("null"), .array([.raw("1")]), .raw(#""x""#)], &generator)
                ))
        }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            body.append(("numbersAsStrings", pick([.raw("true"), .raw("0"), .raw(#""no""#)], &generator)))
        }
        return members(body, &generator)
    }

    private static func entry(_ generator: inout SeededGenerator) -> GeneratedJSON {
        switch Int.random(in: 0..<12, using: &generator) {
        case 0: return pick([.raw("null"), .raw("1"), .array([])], &generator)
        case 1..<4: return .raw(pick([#""a""#, #""b""#, #""""#, #""\u00e9\"""#], &generator))
        default: break
        }
        var entry: [(String, GeneratedJSON)] = []
        if Int.random(in: 0..<10, using: &generator) > 0 {
            entry.append(
                ("recordName", pick([.raw(#""a""#), .raw(#""c d""#), .raw(#""""#), .raw(#""a""#), .raw("null"), .raw("5")], &generator)))
        }
        if Int.random(in: 0..<3, using: &generator) == 0 {
            entry.append(
                (
                    "desiredKeys",
                    pick([.array([]), .array([.raw(#""x""#), .raw(#""y""#)]), .raw("null"), .array([.raw("null")])], &generator)
                ))
        }
        return members(entry, &generator)
    }
}
