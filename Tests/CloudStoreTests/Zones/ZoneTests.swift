import TestSupport
import Testing

@testable import CloudStore

@Suite struct ZoneTests {
    @Test func theDefaultZoneIsListedBeforeItIsUsedAndCustomZonesFollow() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_erin")
        let initial = try database.zones()
        #expect(initial.map(\.zoneID) == [ZoneID(zoneName: "_defaultZone", ownerRecordName: "_erin")])
        #expect(initial.first?.atomic == false)

        let created = try database.modifyZones([ZoneOperation(.create, zoneName: "Notes"), ZoneOperation(.create, zoneName: "Archive")])
        guard case .zone(let notes) = created[0] else { Issue.record("\(created)"); return }
        #expect(notes.zoneID == ZoneID(zoneName: "Notes", ownerRecordName: "_erin"))
        #expect(notes.atomic)
        #expect(try database.zones().map(\.zoneID.zoneName) == ["_defaultZone", "Archive", "Notes"])

        let again = try database.modifyZones([ZoneOperation(.create, zoneName: "Notes")])
        #expect(again == [.failure(notes.zoneID, .exists("Zone 'Notes' already exists"))])

        let lookups = try database.lookupZones(["Notes", "Missing", "_defaultZone"])
        #expect(lookups[0] == .zone(notes))
        #expect(
            lookups[1]
                == .failure(
                    ZoneID(zoneName: "Missing", ownerRecordName: "_erin"),
                    .zoneNotFound(ZoneID(zoneName: "Missing", ownerRecordName: "_erin"))))
        guard case .zone = lookups[2] else { Issue.record("default zone lookup: \(lookups[2])"); return }
    }

    @Test func deletingAZoneDeletesItsRecords() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_finn")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "r", recordType: "Note")], zoneName: "Z"))
        #expect(
            try database.modifyZones([ZoneOperation(.delete, zoneName: "Z")]) == [.deleted(ZoneID(zoneName: "Z", ownerRecordName: "_finn"))]
        )
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.error == .notFound("Record not found"))
        #expect(
            try database.modifyZones([ZoneOperation(.delete, zoneName: "Nope")]).first
                == .failure(
                    ZoneID(zoneName: "Nope", ownerRecordName: "_finn"), .zoneNotFound(ZoneID(zoneName: "Nope", ownerRecordName: "_finn"))))
    }

    /// Read transactions keep the zones they find. A zone deleted through the store, or straight
    /// in the file as another process would, is never found again from what they kept, and a
    /// zone made again under the same name is the new, empty one.
    @Test(.enabled(if: TestBackend.isSQLite, "Changes the SQLite file behind the store"))
    func aDeletedZoneIsNeverFoundFromTheZonesReadsKept() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_kai")
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_kai")
        let missing = CloudStoreError.zoneNotFound(zoneID)
        func makeZoneWithRecord() throws {
            _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
            _ = try database.modify(
                ModifyRequest(operations: [RecordOperation(.create, recordName: "r", recordType: "Note")], zoneName: "Z"))
            // Read twice: found, then taken from what the first read kept.
            #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.record?.recordName == "r")
            #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.record?.recordName == "r")
        }

        try makeZoneWithRecord()
        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Z")])
        #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.error == missing)
        #expect(throws: missing) { try database.query(QueryRequest(query: Query(recordType: "Note"), zoneName: "Z")) }
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.error == .notFound("Record not found"))
        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Z")])

        // Another process deletes the zone's row (and its records) in the file itself.
        try makeZoneWithRecord()
        let file = try RawSQLite(path: "\(store.directory)/containers/\(store.container.rawValue)/development.sqlite")
        try file.execute("DELETE FROM records WHERE zone = (SELECT zone FROM zones WHERE owner = '_kai' AND name = 'Z')")
        try file.execute("DELETE FROM zones WHERE owner = '_kai' AND name = 'Z'")
        #expect(try database.lookup([RecordLookup("r")], zoneName: "Z").first?.error == missing)
    }

    @Test func customZonesOnlyInPrivateDatabasesAndNeverTheDefaultZone() throws {
        let store = try TemporaryStore()
        #expect(throws: CloudStoreError.badRequest("Custom zones exist only in private databases, not in the public database")) {
            try store.database(.development, .public, as: .user("_g")).modifyZones([ZoneOperation(.create, zoneName: "Z")])
        }
        let own = try store.privateDatabase(of: "_g")
        #expect(try own.modifyZones([ZoneOperation(.delete, zoneName: "_defaultZone")]).first?.isFailure == true)
        #expect(try own.modifyZones([ZoneOperation(.create, zoneName: "_hidden")]).first?.isFailure == true)
    }

    @Test func zonesOfOneUserAreInvisibleToAnother() throws {
        let store = try TemporaryStore()
        _ = try store.privateDatabase(of: "_h").modifyZones([ZoneOperation(.create, zoneName: "Mine")])
        #expect(try store.privateDatabase(of: "_i").zones().map(\.zoneID.zoneName) == ["_defaultZone"])
    }
}

extension ZoneResult {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
