import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// A zone's change feed: each changed record once, deletions as such, paging with tokens to the
/// same copy as the server's, refused tokens with their reasons, and never a record (or the
/// deletion of one) its reader may not read.
@Suite struct ZoneChangesTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
            RECORD TYPE Diary (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                GRANT CREATE, READ, WRITE TO "_creator"
            );
        """

    static func write(_ database: CloudDatabase, _ kind: RecordOperation.Kind, _ name: String, _ type: String = "Note", title: String = "")
        throws
    {
        let result = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(kind, recordName: name, recordType: type, fields: kind == .forceDelete ? [:] : ["title": .string(title)])
            ]))
        guard result.first?.record != nil || kind == .forceDelete else { throw TestFailure("\(kind) \(name) failed: \(result)") }
    }

    static func title(_ record: Record) -> String {
        if case .string(let title)? = record.fields["title"] { return title }
        return ""
    }

    /// A feed entry as a test reads it: the record's name, or "deleted" and the name.
    static func describe(_ result: RecordResult) -> String {
        switch result {
        case .record(let record): record.recordName
        case .deleted(let name, _): "deleted " + name
        case .withheld(let name, _, _): "withheld " + name
        case .failure(let name, let error): "failed \(name ?? ""): \(error)"
        }
    }

    /// The records a client holding everything from pages of `limit` changes ends up with;
    /// `onPage` sees each page's entries (names, or "deleted" and the name).
    @discardableResult
    static func follow(
        _ database: CloudDatabase, from token: String?, into copy: inout [String: String], limit: Int, reverse: Bool = false,
        onPage: ([String]) -> Void = { _ in }
    ) throws -> String {
        var token = token
        while true {
            let page = try database.zoneChanges(syncToken: token, resultsLimit: limit, reverse: reverse)
            onPage(page.records.map(Self.describe))
            // A client applies pages as they come.
            for result in page.records {
                switch result {
                case .record(let record): copy[record.recordName] = Self.title(record)
                case .deleted(let name, _): copy[name] = nil
                case .failure, .withheld: throw TestFailure("a feed holds no failures or withheld records")
                }
            }
            token = page.syncToken
            if !page.moreComing { return page.syncToken }
        }
    }

    @Test func aFeedGivesEachChangedRecordOnceAndPagesToTheServersCopy() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let database = try store.database()
        let empty = try database.zoneChanges(syncToken: nil)
        #expect(empty.records.isEmpty && !empty.moreComing)

        for index in 0..<10 { try Self.write(database, .create, "n\(index)", title: "first \(index)") }
        try Self.write(database, .forceUpdate, "n3", title: "second 3")
        try Self.write(database, .forceDelete, "n4")
        let whole = try database.zoneChanges(syncToken: empty.syncToken)
        #expect(whole.records.count == 10 && !whole.moreComing)
        #expect(whole.records.first?.record?.recordName == "n0")
        #expect(whole.records.contains(.deleted(recordName: "n4", zoneID: .defaultZone(of: database.database))))
        #expect(
            whole.records.compactMap(\.record).first { $0.recordName == "n3" }?.fields["title"] == .string("second 3"),
            "a record changed twice comes once, as it is now")

        // Small pages from the start, then more changes, then on from the last token.
        var copy: [String: String] = [:]
        var token = try Self.follow(database, from: nil, into: &copy, limit: 3)
        #expect(
            copy == Dictionary(uniqueKeysWithValues: (0..<10).filter { $0 != 4 }.map { ("n\($0)", $0 == 3 ? "second 3" : "first \($0)") }))
        try Self.write(database, .forceDelete, "n0")
        try Self.write(database, .create, "n10", title: "late")
        try Self.write(database, .forceUpdate, "n1", title: "again")
        let since = try database.zoneChanges(syncToken: token)
        #expect(since.records.map(Self.describe) == ["deleted n0", "n10", "n1"])
        token = try Self.follow(database, from: token, into: &copy, limit: 1)
        let server = try database.query(QueryRequest(query: Query(recordType: "Note"), resultsLimit: 100)).records
        #expect(copy == Dictionary(uniqueKeysWithValues: server.map { ($0.recordName, Self.title($0)) }))
        #expect(try database.zoneChanges(syncToken: token).records.isEmpty, "nothing after the newest token")
        #expect(try database.zoneChanges(syncToken: nil, desiredRecordTypes: ["Diary"]).records.isEmpty)
        #expect(try database.zoneChanges(syncToken: nil, desiredKeys: []).records.compactMap(\.record).allSatisfy { $0.fields.isEmpty })
    }

    @Test func aReaderFollowingWhileSeveralWritersChangeTheZoneEndsWithTheServersCopy() throws {
        let store = try TemporaryStore(controlledClock: false)
        try store.importSchema(Self.schema)
        let database = try store.database()
        let writing = Atomic(4)
        let failures = Mutex<[String]>([])
        for writer in 0..<4 {
            Thread {
                var generator = SeededGenerator(seed: UInt64(writer) + 11)
                for step in 0..<150 {
                    let name = "r\(generator.next(below: 40))"
                    do {
                        if generator.next(below: 4) == 0 {
                            try Self.write(database, .forceDelete, name)
                        } else {
                            try Self.write(database, .forceReplace, name, title: "w\(writer) s\(step)")
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                writing.subtract(1, ordering: .releasing)
            }.start()
        }
        // The reader follows with small pages while the writers write, then once more after.
        var copy: [String: String] = [:]
        var token: String?
        var pages = 0
        while writing.load(ordering: .acquiring) > 0 {
            token = try Self.follow(database, from: token, into: &copy, limit: 7)
            pages += 1
        }
        token = try Self.follow(database, from: token, into: &copy, limit: 7)
        #expect(failures.withLock { $0 }.isEmpty)
        let server = try database.query(QueryRequest(query: Query(recordType: "Note"), resultsLimit: 200)).records
        #expect(copy == Dictionary(uniqueKeysWithValues: server.map { ($0.recordName, Self.title($0)) }))
        #expect(pages > 1, "the reader followed while the writers wrote")
    }

    /// A zone deleted and made again under its name never hands its old holders the new zone's
    /// log as if nothing happened (on SQLite its key was given again): their token has expired,
    /// so they fetch the zone again and drop the records that went with the old one. On both
    /// backends, also when the deleted zone held the largest key.
    @Test func aTokenOfAZoneDeletedAndMadeAgainHasExpired() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
        let database = try store.privateDatabase(of: alice)
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Work"), ZoneOperation(.create, zoneName: "Trips")])
        _ = try database.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "n1", recordType: "Note", fields: [:])], zoneName: "Trips"))
        let held = try database.zoneChanges(zoneName: "Trips", syncToken: nil).syncToken
        let work = try database.zoneChanges(zoneName: "Work", syncToken: nil).syncToken
        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Trips")])
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Trips")])
        _ = try database.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "n2", recordType: "Note", fields: [:])], zoneName: "Trips"))
        #expect(
            throws: CloudStoreError.changeTokenExpired(
                "The zone was deleted and made again since this sync token; fetch its changes again from the start")
        ) { try database.zoneChanges(zoneName: "Trips", syncToken: held) }
        // A token of another zone that exists stays a mix-up, not an expiry.
        #expect(throws: CloudStoreError.badRequest("The sync token belongs to another zone")) {
            try database.zoneChanges(zoneName: "Trips", syncToken: work)
        }
        // Fetched again from the start, the zone holds what it holds now.
        #expect(try database.zoneChanges(zoneName: "Trips", syncToken: nil).records.compactMap(\.record?.recordName) == ["n2"])
    }

    @Test func tokensThatCannotBeFollowedAreRefusedWithTheirReasons() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
        let database = try store.privateDatabase(of: alice)
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Work")])
        try Self.write(database, .create, "n1")
        let token = try database.zoneChanges(syncToken: nil).syncToken
        #expect(throws: CloudStoreError.badRequest("The sync token is not valid")) {
            try database.zoneChanges(syncToken: String(token.dropLast(3)) + "AAA")
        }
        #expect(throws: CloudStoreError.badRequest("The sync token belongs to another zone")) {
            try database.zoneChanges(zoneName: "Work", syncToken: token)
        }
        #expect(throws: CloudStoreError.zoneNotFound(ZoneID(zoneName: "Elsewhere", ownerRecordName: alice))) {
            try database.zoneChanges(zoneName: "Elsewhere", syncToken: nil)
        }
        try store.store.resetDevelopment(store.container)
        try store.importSchema(Self.schema)
        #expect(
            throws: CloudStoreError.changeTokenExpired(
                "The sync token is from before this environment was reset or restored; fetch everything again, without a token")
        ) {
            try store.privateDatabase(of: alice).zoneChanges(syncToken: token)
        }
    }

    @Test func aFeedShowsOnlyWhatItsReaderMayRead() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
        let bob = try store.store.addUser(store.container, name: "bob", password: "a long passphrase").userRecordName
        let asAlice = try store.database(as: .user(alice))
        let asBob = try store.database(as: .user(bob))
        try Self.write(asAlice, .create, "shared", "Note", title: "for all")
        try Self.write(asAlice, .create, "alice-diary", "Diary", title: "mine")
        try Self.write(asAlice, .create, "alice-gone", "Diary", title: "soon gone")
        try Self.write(asAlice, .forceDelete, "alice-gone", "Diary")
        try Self.write(asBob, .create, "bob-diary", "Diary", title: "his")

        func seen(_ database: CloudDatabase) throws -> [String] {
            try database.zoneChanges(syncToken: nil).records.map(Self.describe)
        }
        #expect(try seen(asAlice) == ["shared", "alice-diary", "deleted alice-gone"])
        #expect(try seen(asBob) == ["shared", "bob-diary"], "bob learns neither alice's diary nor that one of hers was deleted")
        #expect(try seen(try store.database(as: .world)) == ["shared"])
        #expect(
            try seen(try store.database()) == ["shared", "alice-diary", "deleted alice-gone", "bob-diary"], "an operator sees everything")
    }

    @Test func reverseHandsOutPagesNewestFirstDownToTheTokenAndNeverTakesBackANewerPage() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let database = try store.database()
        try Self.write(database, .create, "old", title: "before the token")
        let start = try database.zoneChanges(syncToken: nil).syncToken
        for index in 0..<6 { try Self.write(database, .create, "n\(index)", title: "first \(index)") }
        try Self.write(database, .forceDelete, "n1")
        try Self.write(database, .forceUpdate, "n2", title: "second 2")
        try Self.write(database, .create, "n1", title: "again")  // deleted, then created again

        var pages: [[String]] = []
        var copy: [String: String] = [:]
        // Applied as they come, an older page must not undo a newer one.
        let token = try Self.follow(database, from: start, into: &copy, limit: 3, reverse: true) { pages.append($0) }
        #expect(pages.first == ["n1", "n2"], "the newest three changes first: n1 again, n2 updated, n1 deleted (left out: n1 exists)")
        #expect(!pages.joined().contains("deleted n1"), "n1's deletion is not handed out: n1 exists again")
        #expect(!pages.joined().contains("old"), "nothing from before the token")
        #expect(copy == ["n0": "first 0", "n1": "again", "n2": "second 2", "n3": "first 3", "n4": "first 4", "n5": "first 5"])
        // The last token stands where the log stood: the feed goes on from there, either way.
        #expect(try database.zoneChanges(syncToken: token).records.isEmpty)
        try Self.write(database, .create, "later")
        #expect(try database.zoneChanges(syncToken: token, reverse: true).records.map(Self.describe) == ["later"])
    }
}
