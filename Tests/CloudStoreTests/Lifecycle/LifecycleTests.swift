import TestSupport
import Testing

@testable import CloudStore

/// Deploying development's schema to production, and resetting development.
@Suite struct LifecycleTests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE,
                count INT64,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    @Test func aDeploymentAddsWhatDevelopmentHasAndKeepsItsHistory() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let difference = try store.store.schemaDifference(store.container)
        #expect(difference.canDeploy && difference.refusals.isEmpty)
        #expect(
            difference.changes.map(\.description) == [
                "add record type Note (2 fields)", "add index QUERYABLE on Note.___recordID", "add field Note.title STRING",
                "add index QUERYABLE on Note.title", "add index SORTABLE on Note.title", "add field Note.count INT64", "add role Moderator",
            ])

        let deployment = try store.store.deploySchema(store.container, deployedBy: "alice")
        #expect(deployment.deployedBy == "alice" && deployment.changes.count == 7)
        let production = try store.store.schema(store.container, .production)
        #expect(production == (try store.store.schema(store.container, .development)))
        #expect(production.recordType("Note")?.field("title")?.indexes == [.queryable, .sortable])
        #expect(deployment.schema == (try store.store.exportSchema(store.container, .production)))
        // Records are never copied.
        #expect(try store.store.usage(of: store.container)[.production]?.records == 0)
        #expect(try store.store.schemaDifference(store.container).isEmpty)
        #expect(throws: CloudStoreError.badRequest("Production's schema is already development's: there is nothing to deploy")) {
            try store.store.deploySchema(store.container, deployedBy: "alice")
        }

        // A second deployment, with a production record the new index is built over.
        _ = try store.database(.production, as: .user("_writer")).create("Note", "p1", ["title": .string("live"), "count": .int64(1)])
        try store.importSchema(Self.schema.replacingOccurrences(of: "count INT64,", with: "count INT64 QUERYABLE,"))
        let second = try store.store.schemaDifference(store.container)
        #expect(second.changes.map(\.description) == ["add index QUERYABLE on Note.count (1 production record)"])
        try store.store.deploySchema(store.container, deployedBy: "bob (token 1234)")
        let history = try store.store.schemaDeployments(store.container)
        #expect(history.map(\.deployedBy) == ["bob (token 1234)", "alice"])
        #expect(history.first?.changes == ["add index QUERYABLE on Note.count (1 production record)"])
        // The production record is found through the new index.
        let found = try store.database(.production, as: .world).query(
            QueryRequest(
                query: Query(
                    recordType: "Note", filters: [QueryFilter(QueryField(fieldName: "count"), .equals, .int64(1))])))
        #expect(found.records.map(\.recordName) == ["p1"])
    }

    @Test func aDeploymentThatWouldRemoveOrRetypeIsRefusedWithItsReasons() throws {
        let production = try SchemaLanguage.parse(Self.schema)
        var development = try SchemaLanguage.parse(Self.schema.replacingOccurrences(of: "count INT64,", with: "count DOUBLE,"))
        development.roles = []
        let difference = SchemaDifference(production: production, development: development)
        #expect(!difference.canDeploy)
        #expect(
            difference.refusals.map(\.reason) == [
                "Field Note.count is INT64 in production and DOUBLE in development: a field's type cannot change once deployed",
                "Role Moderator is in production but not in development: deployed roles cannot be removed",
            ])
        let withoutField = try SchemaLanguage.parse(Self.schema.replacingOccurrences(of: "count INT64,", with: ""))
        #expect(
            SchemaDifference(production: production, development: withoutField).refusals.map(\.reason).first
                == "Field Note.count is in production but not in development: deployed fields cannot be removed")
        #expect(
            SchemaDifference(production: production, development: Schema(roles: ["Moderator"])).refusals.map(\.reason)
                == ["Record type Note is in production but not in development: deployed record types cannot be removed"])
    }

    @Test func theStoreRefusesADeploymentThatWouldRemoveAField() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        try store.store.deploySchema(store.container, deployedBy: "alice")
        // Development loses the field only by a reset to an older production; write it directly.
        try store.store.environment(store.container, .development).writeSchema { writer in
            try writer.eraseEverything()
            try writer.replaceSchema(try SchemaLanguage.parse(Self.schema.replacingOccurrences(of: "count INT64,", with: "")))
        }
        let before = try store.store.schema(store.container, .production)
        #expect(
            throws: CloudStoreError.badRequest(
                "The schema cannot be deployed: Field Note.count is in production but not in development: deployed fields cannot be removed"
            )
        ) {
            try store.store.deploySchema(store.container, deployedBy: "alice")
        }
        #expect(try store.store.schema(store.container, .production) == before)
        #expect(try store.store.schemaDeployments(store.container).count == 1)
    }

    @Test func aResetEmptiesDevelopmentReturnsProductionsSchemaAndLeavesProductionAlone() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        try store.store.deploySchema(store.container, deployedBy: "alice")
        try store.importSchema(
            Self.schema.replacingOccurrences(of: "count INT64,", with: "count INT64, extra STRING SEARCHABLE, tags LIST<STRING> QUERYABLE,")
                + "\n    RECORD TYPE Draft (body STRING QUERYABLE);\n")
        try store.database().create(
            "Note", "n1", ["title": .string("dev"), "extra": .string("searchable words"), "tags": .list(.string, [.string("a")])])
        try store.database().create("Draft", "d1", ["body": .string("x")])
        let alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
        _ = try store.privateDatabase(of: alice).modifyZones([ZoneOperation(.create, zoneName: "Work")])
        try store.store.setRoles(["Moderator"], of: alice, in: store.container, .development)
        _ = try store.database(.production, as: .user("_writer")).create("Note", "p1", ["title": .string("live")])
        let tokenBefore = try store.database().zones().first?.syncToken
        let developmentSession = try store.store.signIn(store.container, .development, name: "alice", password: "a long passphrase")
            .webAuthToken
        let productionSession = try store.store.signIn(store.container, .production, name: "alice", password: "a long passphrase")
            .webAuthToken

        let contents = try store.store.developmentContents(store.container)
        #expect(contents == DevelopmentContents(records: 2, zones: 1, recordTypes: 2, productionRecordTypes: 1, sessions: 1))
        #expect(try store.store.resetDevelopment(store.container) == contents)

        // Development's sessions end with an error naming the reset; production's go on.
        #expect(throws: CloudStoreError.authenticationRequired("The session ended when its environment was reset; sign in again")) {
            try store.store.session(forWebAuthToken: developmentSession, in: store.container, .development)
        }
        #expect(try store.store.session(forWebAuthToken: productionSession, in: store.container, .production).userRecordName == alice)
        #expect(
            try store.store.signIn(store.container, .development, name: "alice", password: "a long passphrase").user.userRecordName == alice
        )

        #expect(try store.store.schema(store.container, .development) == (try store.store.schema(store.container, .production)))
        #expect(
            try store.store.developmentContents(store.container)
                == DevelopmentContents(records: 0, zones: 0, recordTypes: 1, productionRecordTypes: 1, sessions: 1))
        #expect(try store.database().lookup([RecordLookup("n1")]).first?.error == .notFound("Record not found"))
        #expect(try store.privateDatabase(of: alice).zones().map(\.zoneID.zoneName) == ["_defaultZone"])
        #expect(try store.store.roles(of: alice, in: store.container, .development).isEmpty)
        #expect(try store.database().zones().first?.syncToken != tokenBefore, "tokens from before the reset are told apart")
        // Production is untouched.
        #expect(try store.database(.production, as: .world).lookup([RecordLookup("p1")]).first?.record?.fields["title"] == .string("live"))
        #expect(try store.store.usage(of: store.container)[.production]?.records == 1)
        // Development works again at once, with the same types and new ones made just in time.
        try store.database().create("Note", "n2", ["title": .string("again")])
        try store.importSchema(Self.schema.replacingOccurrences(of: "count INT64,", with: "count INT64, extra STRING SEARCHABLE,"))
        try store.database().create("Note", "n3", ["extra": .string("words to find")])
        #expect(try store.store.developmentContents(store.container).records == 2)
    }

    @Test func aContinuationMarkerFromBeforeAResetIsRefusedWithItsReason() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        for name in ["a", "b", "c"] { try store.database().create("Note", name, ["title": .string(name)]) }
        let query = Query(recordType: "Note")
        let first = try store.database().query(QueryRequest(query: query, resultsLimit: 1))
        let marker = try #require(first.continuationMarker)
        #expect(try store.database().query(QueryRequest(query: query, resultsLimit: 1, continuationMarker: marker)).records.count == 1)
        try store.store.resetDevelopment(store.container)
        try store.importSchema(Self.schema)
        for name in ["d", "e"] { try store.database().create("Note", name, ["title": .string(name)]) }
        #expect(
            throws: CloudStoreError.badRequest(
                "The continuation marker is from before this environment was reset or restored; run the query again from the start")
        ) {
            try store.database().query(QueryRequest(query: query, resultsLimit: 1, continuationMarker: marker))
        }
        #expect(try store.database().query(QueryRequest(query: query, resultsLimit: 5)).records.count == 2)
    }

    @Test func aResetWithNothingDeployedLeavesAnEmptySchema() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        try store.database().create("Note", "n1", ["title": .string("dev")])
        try store.store.resetDevelopment(store.container)
        #expect(try store.store.schema(store.container, .development) == Schema())
        #expect(try store.store.usage(of: store.container)[.development]?.records == 0)
    }
}
