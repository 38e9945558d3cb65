import TestSupport

@testable import CloudStore

/// A record type with a field of every queryable type, all indexed, and five records whose
/// values make every comparator's result easy to work out by hand.
enum QueryFixture {
    static func ref(_ name: String) -> FieldValue { .reference(Reference(recordName: name)) }

    static let type = RecordTypeDefinition(
        name: "Thing",
        fields: [
            FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
            FieldDefinition(name: "___createTime", type: .timestamp, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "s", type: .string, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "i", type: .int64, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "d", type: .double, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "t", type: .timestamp, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "r", type: .reference, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "loc", type: .location, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "sl", type: .list(.string), indexes: [.queryable]),
            FieldDefinition(name: "il", type: .list(.int64), indexes: [.queryable]),
            FieldDefinition(name: "dl", type: .list(.double), indexes: [.queryable]),
            FieldDefinition(name: "tl", type: .list(.timestamp), indexes: [.queryable]),
            FieldDefinition(name: "rl", type: .list(.reference), indexes: [.queryable]),
            FieldDefinition(name: "text", type: .string, indexes: [.searchable]),
            FieldDefinition(name: "plain", type: .string),
        ])

    static let records: [(String, [String: FieldValue])] = [
        (
            "a",
            [
                "s": .string("apple pie"), "i": .int64(1), "d": .double(1.5), "t": .timestamp(1000), "r": ref("x"),
                "loc": .location(Location(latitude: 0, longitude: 0)), "sl": .list(.string, [.string("red"), .string("green")]),
                "il": .list(.int64, [.int64(1), .int64(2)]), "dl": .list(.double, [.double(0.5)]),
                "tl": .list(.timestamp, [.timestamp(10), .timestamp(20)]), "rl": .list(.reference, [ref("x"), ref("y")]),
                "text": .string("The quick brown fox"), "plain": .string("p"),
            ]
        ),
        (
            "b",
            [
                "s": .string("banana"), "i": .int64(2), "d": .double(-2), "t": .timestamp(2000), "r": ref("y"),
                "loc": .location(Location(latitude: 0, longitude: 0.01)), "sl": .list(.string, [.string("green"), .string("blue")]),
                "il": .list(.int64, [.int64(2), .int64(3)]), "dl": .list(.double, [.double(1.5), .double(2.5)]),
                "tl": .list(.timestamp, [.timestamp(20)]), "rl": .list(.reference, [ref("y")]),
                "text": .string("lazy dogs sleep"),
            ]
        ),
        (
            "c",
            [
                "s": .string("apricot"), "i": .int64(3), "d": .double(3.25), "t": .timestamp(3000), "r": ref("x"),
                "loc": .location(Location(latitude: 10, longitude: 10)), "sl": .list(.string, [.string("applesauce")]),
                "il": .list(.int64, []), "dl": .list(.double, []), "tl": .list(.timestamp, [.timestamp(30)]),
                "rl": .list(.reference, []), "text": .string("Quick thinking"),
            ]
        ),
        (
            "d",
            [
                "s": .string("Apple"), "i": .int64(-5), "d": .double(0), "t": .timestamp(-100), "r": ref("z"),
                "loc": .location(Location(latitude: 0, longitude: 1)), "sl": .list(.string, []),
                "il": .list(.int64, [.int64(5)]), "dl": .list(.double, [.double(2.5)]), "tl": .list(.timestamp, []),
                "rl": .list(.reference, [ref("z")]), "text": .string("fox and dog"),
            ]
        ),
        ("e", [:]),
    ]

    /// A store holding the fixture in the public database's default zone.
    static func make() throws -> (TemporaryStore, CloudDatabase) {
        let store = try TemporaryStore()
        try store.setSchema([type])
        let database = try store.database()
        let results = try database.modify(
            ModifyRequest(
                operations: records.map {
                    RecordOperation(.create, recordName: $0.0, recordType: "Thing", fields: $0.1)
                }))
        guard results.allSatisfy({ $0.record != nil }) else { throw TestFailure("fixture failed: \(results)") }
        return (store, database)
    }
}
