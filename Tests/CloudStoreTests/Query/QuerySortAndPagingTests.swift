import TestSupport
import Testing

@testable import CloudStore

@Suite struct QuerySortAndPagingTests {
    private func names(_ database: CloudDatabase, _ sorts: [QuerySort], filters: [QueryFilter] = [], limit: Int? = nil) throws -> [String] {
        try database.query(QueryRequest(query: Query(recordType: "Thing", filters: filters, sorts: sorts), resultsLimit: limit))
            .records.map(\.recordName)
    }

    @Test func sortsPutMissingValuesFirstAscendingAndLastDescending() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        #expect(try names(database, [QuerySort(.field("i"))]) == ["e", "d", "a", "b", "c"])
        #expect(try names(database, [QuerySort(.field("i"), ascending: false)]) == ["c", "b", "a", "d", "e"])
        #expect(try names(database, [QuerySort(.field("s"))]) == ["e", "d", "a", "c", "b"])
        #expect(try names(database, [QuerySort(.field("d"), ascending: false)]) == ["c", "a", "d", "b", "e"])
    }

    @Test func sortByDistanceFromALocation() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let origin = Location(latitude: 0, longitude: 0)
        #expect(
            try names(
                database, [QuerySort(.field("loc"), relativeLocation: origin)],
                filters: [
                    QueryFilter(.field("loc"), .near, .location(origin), distance: 20_000_000)
                ]) == ["a", "b", "d", "c"])
        #expect(
            try names(
                database, [QuerySort(.field("loc"), ascending: false, relativeLocation: origin)],
                filters: [
                    QueryFilter(.field("loc"), .near, .location(origin), distance: 20_000_000)
                ]) == ["c", "d", "b", "a"])
    }

    @Test func withoutSortsRecordsComeInCreationOrder() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        #expect(try names(database, []) == ["a", "b", "c", "d", "e"])
        #expect(try names(database, [QuerySort(.system(.createTime), ascending: false)]) == ["e", "d", "c", "b", "a"])
    }

    @Test func continuationMarkersPageThroughTheSameOrder() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let orders: [[QuerySort]] = [
            [], [QuerySort(.field("i"))], [QuerySort(.field("i"), ascending: false)], [QuerySort(.field("s")), QuerySort(.field("d"))],
            [QuerySort(.field("loc"), relativeLocation: Location(latitude: 0, longitude: 0))],
        ]
        for sorts in orders {
            let all = try names(database, sorts)
            for pageSize in 1...3 {
                var collected: [String] = []
                var marker: String?
                var pages = 0
                repeat {
                    let page = try database.query(
                        QueryRequest(
                            query: Query(recordType: "Thing", sorts: sorts), resultsLimit: pageSize, continuationMarker: marker))
                    collected += page.records.map(\.recordName)
                    marker = page.continuationMarker
                    pages += 1
                    #expect(page.records.count <= pageSize)
                } while marker != nil && pages < 10
                #expect(collected == all, "sorts \(sorts), page size \(pageSize)")
            }
        }
    }

    @Test func markersAreSealedAndBoundToTheirQuery() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        let first = try database.query(QueryRequest(query: Query(recordType: "Thing"), resultsLimit: 2))
        let marker = try #require(first.continuationMarker)

        var tampered = Array(marker)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == "A" ? "B" : "A"
        #expect(throws: CloudStoreError.badRequest("The continuation marker is not valid")) {
            try database.query(QueryRequest(query: Query(recordType: "Thing"), continuationMarker: String(tampered)))
        }
        #expect(throws: CloudStoreError.badRequest("The continuation marker belongs to a different query")) {
            try database.query(
                QueryRequest(
                    query: Query(recordType: "Thing", sorts: [QuerySort(.field("i"))]), continuationMarker: marker))
        }
        #expect(throws: CloudStoreError.badRequest("The continuation marker is not valid")) {
            try database.query(QueryRequest(query: Query(recordType: "Thing"), continuationMarker: "not a marker"))
        }
    }

    @Test func resultsLimitIsCappedAt200() throws {
        let store = try TemporaryStore()
        try store.setSchema([
            RecordTypeDefinition(name: "N", fields: [FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable])])
        ])
        let database = try store.database()
        _ = try database.modify(
            ModifyRequest(operations: (0..<200).map { RecordOperation(.create, recordName: "a\($0)", recordType: "N") }))
        _ = try database.modify(ModifyRequest(operations: (0..<50).map { RecordOperation(.create, recordName: "b\($0)", recordType: "N") }))
        let page = try database.query(QueryRequest(query: Query(recordType: "N"), resultsLimit: 1_000))
        #expect(page.records.count == 200)
        let rest = try database.query(QueryRequest(query: Query(recordType: "N"), continuationMarker: page.continuationMarker))
        #expect(rest.records.count == 50)
        #expect(rest.continuationMarker == nil)
        #expect(throws: CloudStoreError.badRequest("resultsLimit must be at least 1, not 0")) {
            try database.query(QueryRequest(query: Query(recordType: "N"), resultsLimit: 0))
        }
    }
}

@Suite struct QueryIndexRuleTests {
    @Test func eachMissingIndexFailsAsCloudKitDoes() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        func expectRefused(_ query: Query, _ message: String) {
            #expect(performing: { try database.query(QueryRequest(query: query)) }, throws: { ($0 as? CloudStoreError)?.reason == message })
        }
        expectRefused(
            Query(recordType: "Thing", filters: [QueryFilter(.field("plain"), .equals, .string("p"))]),
            "Field 'plain' is not marked queryable")
        expectRefused(
            Query(recordType: "Thing", filters: [QueryFilter(.field("text"), .equals, .string("p"))]),
            "Field 'text' is not marked queryable")
        expectRefused(
            Query(recordType: "Thing", filters: [QueryFilter(.field("s"), .containsAllTokens, .string("apple"))]),
            "Field 's' is not marked searchable")
        expectRefused(Query(recordType: "Thing", sorts: [QuerySort(.field("plain"))]), "Field 'plain' is not marked sortable")
        expectRefused(Query(recordType: "Thing", sorts: [QuerySort(.system(.modTime))]), "Field '___modTime' is not marked sortable")
        expectRefused(Query(recordType: "Missing"), "Did not find record type: Missing")

        let bare = try TemporaryStore()
        try bare.setSchema([
            RecordTypeDefinition(name: "Note", fields: [FieldDefinition(name: "title", type: .string, indexes: [.queryable])])
        ])
        #expect(throws: CloudStoreError.missingIndex(MissingIndex(recordType: "Note", field: "___recordID", index: .queryable))) {
            try bare.database().query(QueryRequest(query: Query(recordType: "Note")))
        }
        #expect(
            try bare.database().query(
                QueryRequest(
                    query: Query(
                        recordType: "Note",
                        filters: [
                            QueryFilter(.field("title"), .equals, .string("x"))
                        ]))
            ).records.isEmpty)
    }

    @Test func comparatorsOnTheWrongTypeAreRefused() throws {
        let (store, database) = try QueryFixture.make()
        defer { _ = store }
        #expect(throws: CloudStoreError.badRequest("LIST_CONTAINS cannot be applied to field 's' of type STRING")) {
            try database.query(
                QueryRequest(query: Query(recordType: "Thing", filters: [QueryFilter(.field("s"), .listContains, .string("a"))])))
        }
        #expect(throws: CloudStoreError.badRequest("Field 'i' is INT64, but the filter gives a value of type STRING")) {
            try database.query(QueryRequest(query: Query(recordType: "Thing", filters: [QueryFilter(.field("i"), .equals, .string("a"))])))
        }
        #expect(throws: CloudStoreError.badRequest("NEAR on field 'loc' needs a distance in meters")) {
            try database.query(
                QueryRequest(
                    query: Query(
                        recordType: "Thing",
                        filters: [
                            QueryFilter(.field("loc"), .near, .location(Location(latitude: 0, longitude: 0)))
                        ])))
        }
        #expect(throws: CloudStoreError.badRequest("Unknown field 'nope' on record type 'Thing'")) {
            try database.query(
                QueryRequest(query: Query(recordType: "Thing", filters: [QueryFilter(.field("nope"), .equals, .string("a"))])))
        }
    }
}
