import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// A zone's change feed followed page by page: each record changed after the token comes once
/// across the pages, at its last change, whatever the page size and in either order, and the
/// copy a client builds from the pages is the server's.
@Suite struct ZoneChangesPagingTests {
    typealias Feed = ZoneChangesTests

    /// Every page of a follow from `token`, each as the names its entries carry ("deleted" and the
    /// name for a deletion), with the copy the pages build and the follow's last token.
    static func pages(
        _ database: CloudDatabase, from token: String?, limit: Int, reverse: Bool = false, copy: [String: String] = [:]
    ) throws -> (pages: [[String]], copy: [String: String], token: String) {
        var pages: [[String]] = []
        var copy = copy
        let token = try Feed.follow(database, from: token, into: &copy, limit: limit, reverse: reverse) { pages.append($0) }
        return (pages, copy, token)
    }

    /// The records of type Note as the server holds them, by name, with their titles.
    static func server(_ database: CloudDatabase) throws -> [String: String] {
        let records = try database.query(QueryRequest(query: Query(recordType: "Note"), resultsLimit: 200)).records
        return Dictionary(uniqueKeysWithValues: records.map { ($0.recordName, Feed.title($0)) })
    }

    @Test func aRecordChangedAfterOthersComesOnceAtItsLastChangeWhateverThePageSize() throws {
        let store = try TemporaryStore()
        try store.importSchema(Feed.schema)
        let database = try store.database()
        try Feed.write(database, .create, "before", title: "before the token")
        let start = try database.zoneChanges(syncToken: nil).syncToken
        // The log after the token: a, b, c, a again, d, b again.
        try Feed.write(database, .create, "a", title: "a 1")
        try Feed.write(database, .create, "b", title: "b 1")
        try Feed.write(database, .create, "c", title: "c 1")
        try Feed.write(database, .forceUpdate, "a", title: "a 2")
        try Feed.write(database, .create, "d", title: "d 1")
        try Feed.write(database, .forceUpdate, "b", title: "b 2")

        for limit in [1, 2, 3, 6, 200] {
            let forward = try Self.pages(database, from: start, limit: limit)
            #expect(
                forward.pages.joined().map(\.self) == ["c", "a", "d", "b"], "limit \(limit): each once, in the order of its last change")
            #expect(forward.pages.count == (6 + limit - 1) / limit, "limit \(limit): a page covers \(limit) changes of the log")
            #expect(forward.copy == ["a": "a 2", "b": "b 2", "c": "c 1", "d": "d 1"])
            if limit == 2 {
                #expect(forward.pages == [[], ["c", "a"], ["d", "b"]], "the first page's two are changed again later: it holds none")
            }
            let reversed = try Self.pages(database, from: start, limit: limit, reverse: true)
            #expect(reversed.pages.joined().map(\.self) == ["b", "d", "a", "c"], "limit \(limit), reversed: each once, newest first")
            #expect(reversed.copy == forward.copy)

            let fromTheStart = try Self.pages(database, from: nil, limit: limit)
            #expect(fromTheStart.pages.joined().map(\.self) == ["before", "c", "a", "d", "b"], "limit \(limit), without a token")
            #expect(fromTheStart.copy == (try Self.server(database)))
            let reversedFromTheStart = try Self.pages(database, from: nil, limit: limit, reverse: true)
            #expect(reversedFromTheStart.pages.joined().map(\.self) == ["b", "d", "a", "c", "before"])

            // Both orders end where the log stands: nothing more from their last tokens.
            #expect(try database.zoneChanges(syncToken: forward.token).records.isEmpty)
            #expect(try database.zoneChanges(syncToken: reversed.token).records.isEmpty)
        }
    }

    @Test func aDeletedRecordComesOnceAsDeletedEvenWhenCreatedAfterTheToken() throws {
        let store = try TemporaryStore()
        try store.importSchema(Feed.schema)
        let database = try store.database()
        try Feed.write(database, .create, "kept", title: "kept 1")
        try Feed.write(database, .create, "older", title: "before the token")
        let start = try database.zoneChanges(syncToken: nil).syncToken
        try Feed.write(database, .create, "brief", title: "created after the token")
        try Feed.write(database, .forceUpdate, "older", title: "changed")
        try Feed.write(database, .forceUpdate, "brief", title: "changed")
        try Feed.write(database, .forceDelete, "older")
        try Feed.write(database, .forceDelete, "brief")
        try Feed.write(database, .create, "back", title: "back 1")
        try Feed.write(database, .forceDelete, "back")
        try Feed.write(database, .create, "back", title: "back again")
        try Feed.write(database, .forceUpdate, "kept", title: "kept 2")

        // The client holds what it had at the token.
        let held = ["kept": "kept 1", "older": "before the token"]
        for limit in [1, 2, 4, 200] {
            for reverse in [false, true] {
                let follow = try Self.pages(database, from: start, limit: limit, reverse: reverse, copy: held)
                let entries = follow.pages.joined().map(\.self)
                let expected = ["deleted older", "deleted brief", "back", "kept"]
                #expect(entries == (reverse ? Array(expected.reversed()) : expected), "limit \(limit), reverse \(reverse)")
                #expect(follow.copy == ["kept": "kept 2", "back": "back again"])
                #expect(follow.copy == (try Self.server(database)))
            }
        }
    }

    @Test func aRecordChangedDuringAFollowComesOnceAtTheChangeItsPageReads() throws {
        let store = try TemporaryStore()
        try store.importSchema(Feed.schema)
        let database = try store.database()
        for name in ["a", "b", "c"] { try Feed.write(database, .create, name, title: "\(name) 1") }

        var copy: [String: String] = [:]
        var seen: [String] = []
        var token: String? = nil
        var changedDuringTheFollow = false
        while true {
            let page = try database.zoneChanges(syncToken: token, resultsLimit: 1)
            seen += page.records.map(Feed.describe)
            for case .record(let record) in page.records { copy[record.recordName] = Feed.title(record) }
            if !changedDuringTheFollow {
                // After the first page: b, still to come, changes; a, handed out, changes again too.
                try Feed.write(database, .forceUpdate, "b", title: "b 2")
                try Feed.write(database, .forceUpdate, "a", title: "a 2")
                changedDuringTheFollow = true
            }
            token = page.syncToken
            if !page.moreComing { break }
        }
        #expect(seen == ["a", "c", "b", "a"], "b once, at its change during the follow; a again, for a change after its page")
        #expect(copy == (try Self.server(database)))
    }
}
