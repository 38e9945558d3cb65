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

    /// Every cell's explanation weighs each grant of the type, says of each whether it gives the
    /// permission and why, and decides as the simulator (and so enforcement) does: the first grant
    /// that gives it is the deciding rule, and a denial has no grant giving it.
    @Test func everyGrantWeighedSaysWhetherItGivesThePermission() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema())
        let container = store.container
        let creator = try store.store.addUser(container, name: "creator", password: "a long passphrase").userRecordName
        let editor = try store.store.addUser(container, name: "editor", password: "a long passphrase").userRecordName
        try store.store.setRoles(["Editor"], of: editor, in: container, .development)
        let schema = try store.store.schema(container, .development)
        for type in schema.recordTypes {
            _ = try store.database(as: .operator(creator)).create(type.name, "r-\(type.name)", ["title": .string("x")])
        }
        let subjects: [CloudStore.AccessSubject] = [.world, .anySignedInUser, .user(editor), .user(creator)]
        for type in schema.recordTypes {
            for subject in subjects {
                for permission in Permission.allCases {
                    let record = permission == .create ? nil : "r-\(type.name)"
                    let explanation = try store.store.explainAccess(
                        permission, recordType: type.name, recordName: record, as: subject, in: container, .development)
                    let decision = try store.store.simulateAccess(
                        permission, recordType: type.name, recordName: record, as: subject, in: container, .development)
                    let label = "\(permission) on \(type.name) for \(subject)"
                    #expect(explanation.decision == decision, "\(label)")
                    #expect(explanation.recordType == type.name && explanation.recordName == record && explanation.database == "public")
                    let grants = explanation.checks.filter { $0.rule.hasPrefix("GRANT ") }
                    #expect(grants.map(\.rule).count == type.grants.count, "each grant weighed once: \(label)")
                    let giving = explanation.checks.filter(\.gives)
                    if decision.isAllowed {
                        let first = try #require(giving.first, "\(label)")
                        #expect(decision.rule.hasPrefix(first.rule), "\(label): \(decision.rule) is \(first.rule)")
                    } else {
                        #expect(giving.isEmpty, "\(label): nothing gives a denied permission, yet \(giving)")
                    }
                }
            }
        }
        let held = try store.store.explainAccess(
            .read, recordType: "T3READ", recordName: "r-T3READ", as: .user(editor), in: container, .development)
        #expect(held.checks == [.init(rule: #"GRANT READ TO "Editor""#, gives: true, why: "the caller holds the role Editor")])
        let missing = try store.store.explainAccess(
            .read, recordType: "T3READ", recordName: "r-T3READ", as: .anySignedInUser, in: container, .development)
        #expect(missing.checks == [.init(rule: #"GRANT READ TO "Editor""#, gives: false, why: "the caller does not hold the role Editor")])
        let world = try store.store.explainAccess(.create, recordType: "Defaults", recordName: nil, as: .world, in: container, .development)
        #expect(world.checks.first == .init(rule: "the world only reads", gives: false, why: "CREATE needs a signed-in user"))
        #expect(world.checks.contains(.init(rule: #"GRANT READ TO "_world""#, gives: false, why: "it gives READ, not CREATE")))
        let nothing = try store.store.explainAccess(
            .write, recordType: "Nothing", recordName: "r-Nothing", as: .user(creator), in: container, .development)
        #expect(nothing.checks.map(\.rule) == ["no grant of Nothing gives WRITE"] && !nothing.decision.isAllowed)
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
