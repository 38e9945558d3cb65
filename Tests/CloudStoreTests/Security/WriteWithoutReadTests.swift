import TestSupport
import Testing

@testable import CloudStore

/// WRITE does not imply READ: a caller who may change a record of the public database but not
/// read it learns nothing of it through `records/modify`, and a VALIDATE reference treats a record
/// its caller may not read as absent. The review's Diary schema: ua writes her diary, ub holds
/// Moderator (WRITE, no READ), uc is any other signed-in user.
@Suite struct WriteWithoutReadTests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Diary (
                "___recordID" REFERENCE QUERYABLE,
                text STRING,
                secretnum INT64,
                GRANT READ, WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT WRITE TO "Moderator"
            );
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                folder REFERENCE,
                GRANT READ, WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    struct Fixture {
        let temporary: TemporaryStore
        let ua: String
        let ub: String
        let uc: String

        init() throws {
            temporary = try TemporaryStore()
            try temporary.importSchema(WriteWithoutReadTests.schema)
            let store = temporary.store
            ua = try store.addUser(temporary.container, name: "ua", password: "a long password").userRecordName
            ub = try store.addUser(temporary.container, name: "ub", password: "a long password").userRecordName
            uc = try store.addUser(temporary.container, name: "uc", password: "a long password").userRecordName
            try store.setRoles(["Moderator"], of: ub, in: temporary.container, .development)
            try database(ua).create("Diary", "d1", ["text": .string("alice private diary"), "secretnum": .int64(4711)])
        }

        func database(_ user: String) throws -> CloudDatabase {
            try temporary.store.database(temporary.container, .development, .public, as: .user(user))
        }
    }

    @Test func aWriterWhoMayNotReadGetsOnlyTheNameAndChangeTagOfWhatTheySave() throws {
        let fixture = try Fixture()
        let ub = try fixture.database(fixture.ub)
        // Lookup and the simulator both say READ is denied…
        #expect(try ub.lookup([RecordLookup("d1")]).first?.error == .accessDenied("READ operation not permitted"))
        let simulated = try fixture.temporary.store.simulateAccess(
            .read, recordType: "Diary", recordName: "d1", as: .user(fixture.ub), in: fixture.temporary.container, .development)
        #expect(!simulated.isAllowed)
        #expect(simulated.rule.hasSuffix("(WRITE does not give READ)"))

        // …and the review's proof, a forced update with no fields, gets no content back.
        let saved = try ub.modify(ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "d1", fields: [:])]))
        let zone = ZoneID.defaultZone(of: .public)
        guard case .withheld(let name, let tag, let zoneID) = try #require(saved.first) else {
            Issue.record("the save answered more than the name and change tag: \(saved)")
            return
        }
        #expect(name == "d1" && zoneID == zone)
        // The tag is the record's new one: ub may go on writing with it.
        let stored = try #require(try fixture.database(fixture.ua).lookup([RecordLookup("d1")]).first?.record)
        #expect(stored.changeTag == tag)
        #expect(stored.fields == ["text": .string("alice private diary"), "secretnum": .int64(4711)])

        // An update with the tag, and a replace, answer the same way; neither echoes a field.
        let updated = try ub.modify(
            ModifyRequest(operations: [
                RecordOperation(.update, recordName: "d1", recordChangeTag: tag, fields: ["secretnum": .int64(1)])
            ]))
        #expect(updated.first?.record == nil)
        guard case .withheld(_, let newTag, _) = try #require(updated.first) else { Issue.record("\(updated)"); return }
        #expect(newTag != tag)

        // The creator, who may read, still gets the whole record.
        let own = try fixture.database(fixture.ua).modify(
            ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "d1", fields: [:])]))
        #expect(own.first?.record?.fields["text"] == .string("alice private diary"))

        // A delete answers as it always did: the name, nothing more.
        let deleted = try ub.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "d1")]))
        #expect(deleted == [.deleted(recordName: "d1", zoneID: zone)])
    }

    @Test func validateTreatsARecordTheCallerMayNotReadAsAbsent() throws {
        let fixture = try Fixture()
        let uc = try fixture.database(fixture.uc)
        func pin(_ name: String, to target: String) throws -> RecordResult {
            try #require(
                try uc.modify(
                    ModifyRequest(operations: [
                        RecordOperation(
                            .create, recordName: name, recordType: "Note",
                            fields: [
                                "folder": .reference(Reference(recordName: target, action: .validate))
                            ])
                    ])
                ).first)
        }
        let hidden = try pin("pin-d1", to: "d1")
        let missing = try pin("pin-none", to: "no-such-diary")
        #expect(
            hidden.error
                == .validatingReference(
                    "Field 'folder' of record 'pin-d1' references record 'd1', which does not exist"))
        // The two answers are the same but for the names the caller gave.
        let normalized = "\(missing)".replacingOccurrences(of: "pin-none", with: "pin-d1").replacingOccurrences(
            of: "no-such-diary", with: "d1")
        #expect("\(hidden)" == normalized)

        // Nothing pins d1: its owner deletes it.
        let deleted = try fixture.database(fixture.ua).modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "d1")]))
        #expect(deleted == [.deleted(recordName: "d1", zoneID: ZoneID.defaultZone(of: .public))])
    }

    @Test func aRefusedDeleteDoesNotNameAReferrerTheCallerMayNotRead() throws {
        let fixture = try Fixture()
        // ua pins her own diary with a Note of hers that only she reads.
        try fixture.temporary.importSchema(
            Self.schema.replacingOccurrences(of: "GRANT READ TO \"_world\"", with: "GRANT WRITE TO \"_creator\""))
        try fixture.database(fixture.ua).create(
            "Note", "ua-secret-pin", ["folder": .reference(Reference(recordName: "d1", action: .validate))])
        let refused = try fixture.database(fixture.ub).modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "d1")]))
        #expect(refused.first?.error == .validatingReference("Record 'd1' cannot be deleted: another record references it with VALIDATE"))
        let own = try fixture.database(fixture.ua).modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "d1")]))
        #expect(
            own.first?.error == .validatingReference("Record 'd1' cannot be deleted: record 'ua-secret-pin' references it with VALIDATE"))
    }
}
