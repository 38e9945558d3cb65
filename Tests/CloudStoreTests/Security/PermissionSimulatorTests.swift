import TestSupport
import Testing

@testable import CloudStore

/// The permission simulator answers what enforcement does, cell by cell of the matrix of
/// roles × record types × permissions, for the world, any signed-in user, a role holder and a
/// record's creator.
@Suite struct PermissionSimulatorTests {
    static let roles = ["_world", "_icloud", "_creator", "Editor"]

    /// One record type per (role, permission) granted alone, one with none, one with CloudKit's defaults.
    static func schema() -> String {
        var text = "DEFINE SCHEMA\n    CREATE ROLE Editor;\n"
        for (r, role) in roles.enumerated() {
            for permission in Permission.allCases {
                text +=
                    "    RECORD TYPE T\(r)\(permission.rawValue) (\"___recordID\" REFERENCE QUERYABLE, title STRING, GRANT \(permission.rawValue) TO \"\(role)\");\n"
            }
        }
        text += "    RECORD TYPE Nothing (title STRING);\n"
        text +=
            "    RECORD TYPE Defaults (title STRING, GRANT WRITE TO \"_creator\", GRANT CREATE TO \"_icloud\", GRANT READ TO \"_world\");\n"
        return text
    }

    @Test func everyCellOfTheMatrixAnswersAsEnforcementDoes() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema())
        let container = store.container
        let creator = try store.store.addUser(container, name: "creator", password: "a long passphrase").userRecordName
        let editor = try store.store.addUser(container, name: "editor", password: "a long passphrase").userRecordName
        let bystander = try store.store.addUser(container, name: "bystander", password: "a long passphrase").userRecordName
        try store.store.setRoles(["Editor"], of: editor, in: container, .development)
        let types = try store.store.schema(container, .development).recordTypes.map(\.name)
        #expect(types.count == 14)
        // A record of every type, created by `creator`.
        for type in types {
            _ = try store.database(as: .operator(creator)).create(type, "r-\(type)", ["title": .string("x")])
        }
        let subjects: [(CloudStore.AccessSubject, Caller, String)] = [
            (.world, .world, "the world"), (.anySignedInUser, .user(bystander), "any signed-in user"),
            (.user(editor), .user(editor), "an Editor"), (.user(creator), .user(creator), "the creator"),
        ]
        var cells = 0
        var allowed = 0
        for type in types {
            for (subject, caller, label) in subjects {
                let database = try store.database(as: caller)
                for permission in Permission.allCases {
                    let decision = try store.store.simulateAccess(
                        permission, recordType: type, recordName: permission == .create ? nil : "r-\(type)", as: subject,
                        in: container, .development)
                    // A save succeeds without an error; its answer holds the record only for
                    // a caller who may also read it, as WRITE does not give READ.
                    let enforced: Bool
                    switch permission {
                    case .create:
                        enforced =
                            (try? database.modify(
                                ModifyRequest(operations: [
                                    RecordOperation(
                                        .create, recordName: "new-\(type)-\(cells)", recordType: type, fields: ["title": .string("y")])
                                ])
                            ).first).map { $0.error == nil } == true
                    case .read:
                        enforced = try database.lookup([RecordLookup("r-\(type)")]).first?.record != nil
                    case .write:
                        enforced =
                            (try? database.modify(
                                ModifyRequest(operations: [
                                    RecordOperation(
                                        .forceUpdate, recordName: "r-\(type)", recordType: type, fields: ["title": .string("z")])
                                ])
                            ).first).map { $0.error == nil } == true
                    }
                    #expect(decision.isAllowed == enforced, "\(permission) on \(type) for \(label): simulator says \(decision)")
                    cells += 1
                    if enforced { allowed += 1 }
                }
            }
        }
        #expect(cells == 14 * 4 * 3)
        #expect(allowed > 20 && allowed < cells - 20, "the matrix holds both answers")
    }

    @Test func theSimulatorNamesTheRuleThatDecided() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema())
        let creator = try store.store.addUser(store.container, name: "creator", password: "a long passphrase").userRecordName
        _ = try store.database(as: .operator(creator)).create("Defaults", "d", [:])
        let read = try store.store.simulateAccess(
            .read, recordType: "Defaults", recordName: "d", as: .world, in: store.container, .development)
        #expect(read.description == #"allowed: GRANT READ TO "_world""#)
        let write = try store.store.simulateAccess(
            .write, recordType: "Defaults", recordName: "d", as: .anySignedInUser, in: store.container, .development)
        #expect(write.description == "denied: no grant gives WRITE on Defaults to _world, _icloud")
        let own = try store.store.simulateAccess(
            .write, recordType: "Defaults", recordName: "d", as: .user(creator), in: store.container, .development)
        #expect(own.description == #"allowed: GRANT WRITE TO "_creator" (the caller created the record)"#)
        #expect(throws: CloudStoreError.badRequest("READ is decided for a record: name one of type Defaults")) {
            try store.store.simulateAccess(.read, recordType: "Defaults", recordName: nil, as: .world, in: store.container, .development)
        }
        #expect(throws: CloudStoreError.self) {
            try store.store.simulateAccess(
                .read, recordType: "Defaults", recordName: "missing", as: .world, in: store.container, .development)
        }
    }

    @Test func grantsAndRolesAreEditedInDevelopmentOnly() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema())
        try store.store.createRole("Reviewer", in: store.container, .development)
        #expect(throws: CloudStoreError.exists("Role Reviewer already exists")) {
            try store.store.createRole("Reviewer", in: store.container, .development)
        }
        #expect(throws: CloudStoreError.self) { try store.store.createRole("_hacker", in: store.container, .development) }
        try store.store.setGrants(
            [Grant([.read], to: "Reviewer"), Grant([.write, .read], to: "Reviewer"), Grant([], to: "_world")],
            of: "Nothing", in: store.container, .development)
        #expect(
            try store.store.schema(store.container, .development).recordType("Nothing")?.grants == [Grant([.read, .write], to: "Reviewer")])
        #expect(throws: CloudStoreError.self) {
            try store.store.setGrants([Grant([.read], to: "Ghost")], of: "Nothing", in: store.container, .development)
        }
        let reviewer = try store.store.addUser(store.container, name: "reviewer", password: "a long passphrase").userRecordName
        try store.store.setRoles(["Reviewer"], of: reviewer, in: store.container, .development)
        try store.store.deleteRole("Reviewer", in: store.container, .development)
        let schema = try store.store.schema(store.container, .development)
        #expect(!schema.roles.contains("Reviewer") && schema.recordType("Nothing")?.grants == [])
        #expect(try store.store.roles(of: reviewer, in: store.container, .development).isEmpty)
        #expect(throws: CloudStoreError.self) { try store.store.createRole("Other", in: store.container, .production) }
        #expect(throws: CloudStoreError.self) { try store.store.setGrants([], of: "Nothing", in: store.container, .production) }
    }
}
