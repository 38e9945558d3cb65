import TestSupport
import Testing

@testable import CloudStore

@Suite struct ReferenceRulesTests {
    @Test func validateRefusesAMissingTargetAndAcceptsAnExistingOne() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let missing = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "child", recordType: "Item",
                    fields: [
                        "owner": .reference(Reference(recordName: "parent", action: .validate))
                    ])
            ]))
        #expect(
            missing.first?.error
                == .validatingReference(
                    "Field 'owner' of record 'child' references record 'parent', which does not exist"))

        // Created earlier in the same batch counts as existing.
        let ok = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "parent", recordType: "List"),
                RecordOperation(
                    .create, recordName: "child", recordType: "Item",
                    fields: [
                        "owner": .reference(Reference(recordName: "parent", action: .validate))
                    ]),
            ]))
        #expect(ok.allSatisfy { $0.record != nil })

        let blocked = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "parent")]))
        #expect(
            blocked.first?.error
                == .validatingReference(
                    "Record 'parent' cannot be deleted: record 'child' references it with VALIDATE"))
        #expect(try database.lookup([RecordLookup("parent")]).first?.record != nil)
    }

    @Test func deleteSelfDeletesChildrenWithTheirParentTransitively() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("List", "list")
        try database.create("Item", "item1", ["list": .reference(Reference(recordName: "list", action: .deleteSelf))])
        try database.create("Item", "item2", ["list": .reference(Reference(recordName: "list", action: .deleteSelf))])
        try database.create("Note", "note", ["item": .reference(Reference(recordName: "item1", action: .deleteSelf))])
        try database.create("Item", "loose", ["list": .reference(Reference(recordName: "list", action: .none))])

        let result = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "list")]))
        #expect(result == [.deleted(recordName: "list", zoneID: ZoneID.defaultZone(of: .public))])
        let after = try database.lookup(["list", "item1", "item2", "note", "loose"].map { RecordLookup($0) })
        #expect(after.prefix(4).allSatisfy { $0.error == .notFound("Record not found") })
        #expect(after[4].record != nil)
    }

    @Test func deleteSelfCyclesTerminate() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Node", "a")
        try database.create("Node", "b", ["next": .reference(Reference(recordName: "a", action: .deleteSelf))])
        let a = try #require(try database.lookup([RecordLookup("a")]).first?.record)
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .update, recordName: "a", recordChangeTag: a.changeTag,
                    fields: [
                        "next": .reference(Reference(recordName: "b", action: .deleteSelf))
                    ])
            ]))
        let result = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "a")]))
        #expect(result.first == .deleted(recordName: "a", zoneID: ZoneID.defaultZone(of: .public)))
        #expect(try database.lookup([RecordLookup("b")]).first?.error == .notFound("Record not found"))
    }

    @Test func referencesMustStayInTheirZone() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_dave")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Other")])
        let result = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "x", recordType: "Item",
                    fields: [
                        "ref": .reference(Reference(recordName: "y", zoneID: ZoneID(zoneName: "Other", ownerRecordName: "_dave")))
                    ])
            ]))
        guard case .badRequest(let reason) = result.first?.error else {
            Issue.record("expected BAD_REQUEST, got \(result)")
            return
        }
        #expect(reason.contains("references must stay within the record's zone"))
    }
}
