import Testing

@testable import CloudStore

/// One filter and the records it must return.
struct ComparatorCase: CustomTestStringConvertible, Sendable {
    var field: String
    var comparator: Comparator
    var value: FieldValue
    var distance: Double?
    var expected: Set<String>

    init(_ field: String, _ comparator: Comparator, _ value: FieldValue, distance: Double? = nil, _ expected: Set<String>) {
        self.field = field
        self.comparator = comparator
        self.value = value
        self.distance = distance
        self.expected = expected
    }

    var testDescription: String { "\(field) \(comparator.rawValue) \(value)" }
}

private func strings(_ values: String...) -> FieldValue { .list(.string, values.map { .string($0) }) }
private func ints(_ values: Int64...) -> FieldValue { .list(.int64, values.map { .int64($0) }) }
private func doubles(_ values: Double...) -> FieldValue { .list(.double, values.map { .double($0) }) }
private func times(_ values: Int64...) -> FieldValue { .list(.timestamp, values.map { .timestamp($0) }) }
private func refs(_ values: String...) -> FieldValue { .list(.reference, values.map { QueryFixture.ref($0) }) }
private let origin = FieldValue.location(Location(latitude: 0, longitude: 0))

let comparatorCases: [ComparatorCase] = [
    // STRING
    .init("s", .equals, .string("banana"), ["b"]),
    .init("s", .notEquals, .string("banana"), ["a", "c", "d"]),
    .init("s", .lessThan, .string("b"), ["a", "c", "d"]),
    .init("s", .lessThanOrEquals, .string("banana"), ["a", "b", "c", "d"]),
    .init("s", .greaterThan, .string("apple pie"), ["b", "c"]),
    .init("s", .greaterThanOrEquals, .string("apricot"), ["b", "c"]),
    .init("s", .in, strings("banana", "Apple", "nope"), ["b", "d"]),
    .init("s", .notIn, strings("banana"), ["a", "c", "d"]),
    .init("s", .beginsWith, .string("ap"), ["a", "c"]),
    .init("s", .notBeginsWith, .string("ap"), ["b", "d"]),
    .init("s", .beginsWith, .string(""), ["a", "b", "c", "d"]),
    // INT64
    .init("i", .equals, .int64(2), ["b"]),
    .init("i", .notEquals, .int64(2), ["a", "c", "d"]),
    .init("i", .lessThan, .int64(2), ["a", "d"]),
    .init("i", .lessThanOrEquals, .int64(2), ["a", "b", "d"]),
    .init("i", .greaterThan, .int64(1), ["b", "c"]),
    .init("i", .greaterThanOrEquals, .int64(3), ["c"]),
    .init("i", .in, ints(1, 3), ["a", "c"]),
    .init("i", .notIn, ints(1, 3), ["b", "d"]),
    // DOUBLE (an integer value is taken as a double)
    .init("d", .equals, .double(1.5), ["a"]),
    .init("d", .equals, .int64(0), ["d"]),
    .init("d", .notEquals, .double(0), ["a", "b", "c"]),
    .init("d", .lessThan, .double(0), ["b"]),
    .init("d", .lessThanOrEquals, .double(0), ["b", "d"]),
    .init("d", .greaterThan, .double(1.5), ["c"]),
    .init("d", .greaterThanOrEquals, .double(1.5), ["a", "c"]),
    .init("d", .in, doubles(0, 3.25), ["c", "d"]),
    .init("d", .notIn, doubles(0, 3.25), ["a", "b"]),
    // TIMESTAMP
    .init("t", .equals, .timestamp(2000), ["b"]),
    .init("t", .notEquals, .timestamp(2000), ["a", "c", "d"]),
    .init("t", .lessThan, .timestamp(1000), ["d"]),
    .init("t", .lessThanOrEquals, .timestamp(1000), ["a", "d"]),
    .init("t", .greaterThan, .int64(1000), ["b", "c"]),
    .init("t", .greaterThanOrEquals, .timestamp(2000), ["b", "c"]),
    .init("t", .in, times(1000, 3000), ["a", "c"]),
    .init("t", .notIn, times(1000), ["b", "c", "d"]),
    // REFERENCE (a record name string is taken as a reference)
    .init("r", .equals, QueryFixture.ref("x"), ["a", "c"]),
    .init("r", .equals, .string("y"), ["b"]),
    .init("r", .notEquals, QueryFixture.ref("x"), ["b", "d"]),
    .init("r", .in, refs("x", "z"), ["a", "c", "d"]),
    .init("r", .notIn, refs("x"), ["b", "d"]),
    // LOCATION
    .init("loc", .near, origin, distance: 2_000, ["a", "b"]),
    .init("loc", .near, origin, distance: 200_000, ["a", "b", "d"]),
    .init("loc", .near, .location(Location(latitude: 10, longitude: 10)), distance: 10, ["c"]),
    // STRING_LIST
    .init("sl", .listContains, .string("green"), ["a", "b"]),
    .init("sl", .notListContains, .string("green"), ["c", "d"]),
    .init("sl", .listContainsAny, strings("red", "blue"), ["a", "b"]),
    .init("sl", .notListContainsAny, strings("red", "blue"), ["c", "d"]),
    .init("sl", .listContainsAll, strings("green", "blue"), ["b"]),
    .init("sl", .notListContainsAll, strings("green", "blue"), ["a", "c", "d"]),
    .init("sl", .listMemberBeginsWith, .string("app"), ["c"]),
    .init("sl", .notListMemberBeginsWith, .string("gr"), ["c", "d"]),
    // INT64_LIST
    .init("il", .listContains, .int64(2), ["a", "b"]),
    .init("il", .notListContains, .int64(2), ["c", "d"]),
    .init("il", .listContainsAny, ints(3, 5), ["b", "d"]),
    .init("il", .notListContainsAny, ints(1, 5), ["b", "c"]),
    .init("il", .listContainsAll, ints(1, 2), ["a"]),
    .init("il", .notListContainsAll, ints(2), ["c", "d"]),
    // DOUBLE_LIST
    .init("dl", .listContains, .double(2.5), ["b", "d"]),
    .init("dl", .notListContains, .double(2.5), ["a", "c"]),
    .init("dl", .listContainsAny, doubles(0.5), ["a"]),
    .init("dl", .notListContainsAny, doubles(0.5, 1.5), ["c", "d"]),
    .init("dl", .listContainsAll, doubles(1.5, 2.5), ["b"]),
    .init("dl", .notListContainsAll, doubles(2.5), ["a", "c"]),
    // TIMESTAMP_LIST
    .init("tl", .listContains, .timestamp(20), ["a", "b"]),
    .init("tl", .notListContains, .timestamp(20), ["c", "d"]),
    .init("tl", .listContainsAny, times(30), ["c"]),
    .init("tl", .notListContainsAny, times(20, 30), ["d"]),
    .init("tl", .listContainsAll, times(10, 20), ["a"]),
    .init("tl", .notListContainsAll, times(10, 20), ["b", "c", "d"]),
    // REFERENCE_LIST
    .init("rl", .listContains, QueryFixture.ref("y"), ["a", "b"]),
    .init("rl", .notListContains, QueryFixture.ref("y"), ["c", "d"]),
    .init("rl", .listContainsAny, refs("z"), ["d"]),
    .init("rl", .notListContainsAny, refs("x", "z"), ["b", "c"]),
    .init("rl", .listContainsAll, refs("x", "y"), ["a"]),
    .init("rl", .notListContainsAll, refs("y"), ["c", "d"]),
    // SEARCHABLE STRING: tokens, without case
    .init("text", .containsAllTokens, .string("quick fox"), ["a"]),
    .init("text", .containsAllTokens, .string("QUICK"), ["a", "c"]),
    .init("text", .containsAnyTokens, .string("fox, dogs!"), ["a", "b", "d"]),
    .init("text", .containsAnyTokens, .string("dog"), ["d"]),
    // System fields
    .init("___recordID", .equals, .string("b"), ["b"]),
    .init("___recordID", .in, strings("a", "e", "zz"), ["a", "e"]),
]

@Suite struct QueryComparatorTests {
    @Test(arguments: comparatorCases)
    func comparatorReturnsExactlyTheMatchingRecords(_ testCase: ComparatorCase) throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let result = try database.query(
            QueryRequest(
                query: Query(
                    recordType: "Thing",
                    filters: [
                        QueryFilter(QueryField(fieldName: testCase.field), testCase.comparator, testCase.value, distance: testCase.distance)
                    ])))
        #expect(Set(result.records.map(\.recordName)) == testCase.expected)
        #expect(result.continuationMarker == nil)
    }

    @Test func everyComparatorIsCovered() {
        #expect(Set(comparatorCases.map(\.comparator)) == Set(Comparator.allCases))
    }

    @Test func filtersAreAndedTogether() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let result = try database.query(
            QueryRequest(
                query: Query(
                    recordType: "Thing",
                    filters: [
                        QueryFilter(.field("i"), .greaterThan, .int64(0)),
                        QueryFilter(.field("sl"), .listContains, .string("green")),
                        QueryFilter(.field("s"), .beginsWith, .string("b")),
                    ])))
        #expect(result.records.map(\.recordName) == ["b"])
    }
}
