import TestSupport
import Testing

@testable import CloudStore

/// Every role against every operation, for a type with CloudKit's default grants and for one with
/// restrictive grants, in both environments: allowed exactly where the grants say.
@Suite struct PermissionMatrixTests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Open (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
            RECORD TYPE Restricted (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                GRANT READ, WRITE TO "_creator",
                GRANT CREATE, READ, WRITE TO "Moderator"
            );
        """

    enum Who: String, CaseIterable {
        case world, alice, bob, moderator
    }

    enum Operation: String, CaseIterable {
        case create, lookup, query, update, delete
    }

    /// A store whose users alice, bob and moderator exist, moderator holding Moderator, with one
    /// record of each type created by alice and one by moderator.
    struct Fixture {
        let temporary: TemporaryStore
        let environment: Environment
        var users: [Who: String] = [:]

        init(_ environment: Environment) throws {
            temporary = try TemporaryStore()
            self.environment = environment
            let store = temporary.store
            let schema = try store.validateSchema(PermissionMatrixTests.schema)
            try store.environment(temporary.container, environment).writeSchema { try $0.replaceSchema(schema) }
            for who in [Who.alice, .bob, .moderator] {
                users[who] = try store.addUser(temporary.container, name: who.rawValue, password: "a long password").userRecordName
            }
            try store.setRoles(["Moderator"], of: users[.moderator]!, in: temporary.container, environment)
            // Alice creates her Restricted record while briefly a moderator.
            try store.setRoles(["Moderator"], of: users[.alice]!, in: temporary.container, environment)
            for type in ["Open", "Restricted"] {
                try database(.alice).create(type, "\(type)-alice", ["title": .string("a")])
                try database(.moderator).create(type, "\(type)-moderator", ["title": .string("m")])
            }
            try store.setRoles([], of: users[.alice]!, in: temporary.container, environment)
        }

        func caller(_ who: Who) -> Caller { who == .world ? .world : .user(users[who]!) }

        func database(_ who: Who) throws -> CloudDatabase {
            try temporary.store.database(temporary.container, environment, .public, as: caller(who))
        }

        /// Whether `who` may do `operation` on a record of `type` created by alice.
        func attempt(_ operation: Operation, _ who: Who, _ type: String) throws -> Bool {
            let database = try database(who)
            let target = "\(type)-alice"
            switch operation {
            case .create:
                do {
                    let results = try database.modify(
                        ModifyRequest(operations: [
                            RecordOperation(.create, recordName: "new-\(who)-\(type)", recordType: type, fields: ["title": .string("n")])
                        ]))
                    return results.first?.record != nil
                } catch CloudStoreError.authenticationRequired {
                    return false
                }
            case .lookup:
                return try database.lookup([RecordLookup(target)]).first?.record != nil
            case .query:
                do {
                    let found = try database.query(QueryRequest(query: Query(recordType: type))).records.map(\.recordName)
                    return found.contains(target)
                } catch CloudStoreError.accessDenied {
                    return false
                }
            case .update, .delete:
                let current = try temporary.database(environment).lookup([RecordLookup(target)]).first!.record!
                let kind: RecordOperation.Kind = operation == .update ? .update : .delete
                do {
                    let result = try database.modify(
                        ModifyRequest(operations: [
                            RecordOperation(
                                kind, recordName: target, recordChangeTag: current.changeTag,
                                fields: kind == .update ? ["title": .string("changed")] : [:])
                        ])
                    ).first!
                    if let error = result.error {
                        #expect(error == .accessDenied("WRITE operation not permitted"), "\(operation) \(who) \(type): \(error)")
                        return false
                    }
                    if operation == .delete {
                        try temporary.database(environment).create(type, target, ["title": .string("a")])
                    }
                    return true
                } catch CloudStoreError.authenticationRequired {
                    return false
                }
            }
        }
    }

    /// What the grants say, cell by cell.
    static let expected: [String: [Operation: Set<Who>]] = [
        "Open": [
            .create: [.alice, .bob, .moderator],
            .lookup: [.world, .alice, .bob, .moderator],
            .query: [.world, .alice, .bob, .moderator],
            .update: [.alice],
            .delete: [.alice],
        ],
        "Restricted": [
            .create: [.moderator],
            .lookup: [.alice, .moderator],
            .query: [.alice, .moderator],
            .update: [.alice, .moderator],
            .delete: [.alice, .moderator],
        ],
    ]

    @Test(arguments: [Environment.development, .production])
    func everyCellIsAllowedExactlyWhereTheGrantsSay(_ environment: Environment) throws {
        let fixture = try Fixture(environment)
        for type in ["Open", "Restricted"] {
            for operation in Operation.allCases {
                for who in Who.allCases {
                    let allowed = try fixture.attempt(operation, who, type)
                    #expect(allowed == Self.expected[type]![operation]!.contains(who), "\(environment) \(type) \(operation) by \(who)")
                }
            }
        }
    }

    @Test(arguments: [Environment.development, .production])
    func queriesNeverReturnNorCountARecordTheReaderMayNotRead(_ environment: Environment) throws {
        let fixture = try Fixture(environment)
        for index in 0..<5 {
            try fixture.database(.moderator).create("Restricted", "m\(index)", ["title": .string("x")])
        }
        // Alice reads only her own record however the pages fall: one per page, and no empty
        // page or marker promising more.
        let alice = try fixture.database(.alice)
        var names: [String] = []
        var marker: String?
        repeat {
            let page = try alice.query(QueryRequest(query: Query(recordType: "Restricted"), resultsLimit: 1, continuationMarker: marker))
            #expect(!page.records.isEmpty)
            names += page.records.map(\.recordName)
            marker = page.continuationMarker
        } while marker != nil
        #expect(names == ["Restricted-alice"])
        // The moderator reads all seven.
        #expect(try fixture.database(.moderator).query(QueryRequest(query: Query(recordType: "Restricted"))).records.count == 7)
        // Bob may read only what he created, which is nothing; the world may not read the type.
        #expect(try fixture.database(.bob).query(QueryRequest(query: Query(recordType: "Restricted"))).records.isEmpty)
        #expect(throws: CloudStoreError.accessDenied("READ operation not permitted on record type Restricted")) {
            try fixture.database(.world).query(QueryRequest(query: Query(recordType: "Restricted")))
        }
    }

    @Test func theWorldCannotReadACreatorOnlyType() throws {
        let temporary = try TemporaryStore()
        try temporary.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Secret ( "___recordID" REFERENCE QUERYABLE, body STRING, GRANT READ, WRITE, CREATE TO "_creator" );
            """)
        let alice = try temporary.store.addUser(temporary.container, name: "alice", password: "a long password").userRecordName
        try temporary.database(as: .user(alice)).create("Secret", "s", ["body": .string("mine")])
        let world = try temporary.database(as: .world)
        #expect(try world.lookup([RecordLookup("s")]).first?.error == .accessDenied("READ operation not permitted"))
        #expect(throws: CloudStoreError.self) { try world.query(QueryRequest(query: Query(recordType: "Secret"))) }
        #expect(try temporary.database(as: .user(alice)).lookup([RecordLookup("s")]).first?.record?.fields["body"] == .string("mine"))
    }

    @Test func aConflictShowsTheServerRecordOnlyToWhoMayReadIt() throws {
        let fixture = try Fixture(.development)
        // Bob creating a record whose name alice's Restricted record holds learns nothing of it.
        let result = try fixture.database(.moderator).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "Restricted-alice", recordType: "Restricted")
            ])
        ).first!
        guard case .conflict(_, let record) = result.error else { Issue.record("\(result)"); return }
        #expect(record?.recordName == "Restricted-alice")
        let open = try fixture.database(.bob).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "Restricted-alice", recordType: "Open")
            ])
        ).first!
        guard case .conflict(_, let hidden) = open.error else { Issue.record("\(open)"); return }
        #expect(hidden == nil)
    }

    @Test func rolesTakeEffectAtOnceAndOnlyDeclaredRolesCanBeGiven() throws {
        let fixture = try Fixture(.development)
        let store = fixture.temporary.store
        let bob = fixture.users[.bob]!
        #expect(try !fixture.attempt(.lookup, .bob, "Restricted"))
        try store.setRoles(["Moderator"], of: bob, in: fixture.temporary.container, .development)
        #expect(try fixture.attempt(.lookup, .bob, "Restricted"))
        #expect(try store.roles(of: bob, in: fixture.temporary.container, .development) == ["Moderator"])
        #expect(throws: CloudStoreError.self) {
            try store.setRoles(["Nobody"], of: bob, in: fixture.temporary.container, .development)
        }
        #expect(throws: CloudStoreError.self) {
            try store.setRoles(["_icloud"], of: bob, in: fixture.temporary.container, .development)
        }
        // A role leaving the schema leaves its holders too.
        try fixture.temporary.importSchema(
            Self.schema.replacingOccurrences(of: "CREATE ROLE Moderator;", with: "")
                .replacingOccurrences(of: #"GRANT CREATE, READ, WRITE TO "Moderator""#, with: #"GRANT CREATE TO "_icloud""#))
        #expect(try store.roleAssignments(in: fixture.temporary.container, .development).isEmpty)
    }
}
