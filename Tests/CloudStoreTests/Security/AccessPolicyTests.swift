import TestSupport
import Testing

@testable import CloudStore

@Suite struct AccessPolicyTests {
    @Test func theWorldReadsThePublicDatabaseButCannotWrite() throws {
        let store = try TemporaryStore()
        try store.database(as: .user("_alice")).create("Note", "n", ["t": .string("x")])
        let world = try store.database(as: .world)
        #expect(try world.lookup([RecordLookup("n")]).first?.record?.fields == ["t": .string("x")])
        #expect(throws: CloudStoreError.authenticationRequired("Changing records needs a signed-in user")) {
            try world.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "w", recordType: "Note")]))
        }
    }

    @Test func onlyTheCreatorOrAnAdministratorWritesAPublicRecord() throws {
        let store = try TemporaryStore()
        let created = try store.database(as: .user("_alice")).create("Note", "n", ["t": .string("x")])
        let bob = try store.database(as: .user("_bob"))
        let denied = try bob.modify(
            ModifyRequest(operations: [
                RecordOperation(.update, recordName: "n", recordChangeTag: created.changeTag, fields: ["t": .string("bob")])
            ]))
        #expect(denied.first?.error == .accessDenied("WRITE operation not permitted"))
        #expect(
            try bob.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n")])).first?.error
                == .accessDenied("WRITE operation not permitted"))
        #expect(try bob.create("Note", "bobs").created.userRecordName == "_bob")

        let server = try store.database(as: .server("_developer"))
        let updated = try server.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "n", fields: ["t": .string("admin")])
            ]))
        #expect(updated.first?.record?.modified.userRecordName == "_developer")
        #expect(updated.first?.record?.created.userRecordName == "_alice")
    }

    @Test func aPrivateDatabaseIsItsUsersAlone() throws {
        let store = try TemporaryStore()
        try store.privateDatabase(of: "_alice").create("Diary", "d", ["t": .string("secret")])
        #expect(throws: CloudStoreError.accessDenied("The private database belongs to another user")) {
            try store.store.database(store.container, .development, database: .private("_alice"), as: .user("_bob"))
        }
        #expect(throws: CloudStoreError.authenticationRequired("The private database needs a signed-in user")) {
            try store.database(.development, .private, as: .world)
        }
        #expect(throws: CloudStoreError.accessDenied("Server-to-server keys can use the public database only")) {
            try store.store.database(store.container, .development, database: .private("_alice"), as: .server("_dev"))
        }
        #expect(try store.privateDatabase(of: "_bob").lookup([RecordLookup("d")]).first?.error == .notFound("Record not found"))
        let operatorView = try store.store.database(store.container, .development, database: .private("_alice"), as: .operator())
        #expect(try operatorView.lookup([RecordLookup("d")]).first?.record != nil)
    }

    @Test func anOperatorSeesUsersPrivateDataInDevelopmentOnly() throws {
        let store = try TemporaryStore()
        _ = try store.store.database(store.container, .production, database: .private("_alice"), as: .user("_alice"))
        for scope in [DatabaseID.private("_alice"), .shared("_alice")] {
            #expect(
                throws: CloudStoreError.accessDenied(
                    "Operators see users' \(scope.scope) databases in development only; in production they belong to their users")
            ) {
                try store.store.database(store.container, .production, database: scope, as: .operator())
            }
            _ = try store.store.database(store.container, .development, database: scope, as: .operator())
        }
        _ = try store.store.database(store.container, .production, database: .public, as: .operator())
    }
}
