import CloudKitWire
import CloudStore

/// A store in which every admin action has something to act on, for walking them all: an
/// operator `root`, users `alice` (with a zone `Work`, a subscription `notes` and a push token)
/// and `bob` (a participant of alice's share `share-trip`), and a `Note` type, in development.
public final class AdminFixture {
    /// The store's files (and database on PostgreSQL).
    public let fixture: TemporaryStore
    /// The store.
    public let store: CloudStore
    /// The operator acting: `root`, signed in to the console.
    public let actor = OperatorIdentity.session(operatorName: "root", sessionID: "session")
    /// The container, as requests name it.
    public let container: String
    /// The id of alice's push token.
    public let pushTokenID: String

    /// The schema imported at start.
    public static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ TO "_world", GRANT CREATE, WRITE TO "_creator");
        """

    /// Sets the store up.
    public init() throws {
        // Backups go where the command line looks by default: `backups` in the data directory.
        fixture = try TemporaryStore { $0.backups = BackupSchedule(location: .directory($0.dataDirectory + "/backups")) }
        store = fixture.store
        container = fixture.container.rawValue
        let c = fixture.container
        try store.addOperator("root", password: "operator password")
        try store.importSchema(Self.schema, into: c, .development)
        let alice = try store.addUser(c, name: "alice", password: "a long passphrase").userRecordName
        let bob = try store.addUser(c, name: "bob", password: "a long passphrase").userRecordName
        pushTokenID = try store.registerPushToken(
            "alicedevicetoken", c, .development, apnsEnvironment: "development", caller: .user(alice)
        ).id
        _ = try store.database(c, .development, .public, as: .user(alice)).modifySubscriptions([
            SubscriptionOperation(
                .create,
                Subscription(
                    subscriptionID: "notes", kind: .query(Query(recordType: "Note"), zoneName: nil, firesOn: [.create], firesOnce: false)))
        ])
        let owner = try store.database(c, .development, .private, as: .user(alice))
        _ = try owner.modifyZones([ZoneOperation(.create, zoneName: "Work")])
        _ = try owner.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "trip", recordType: "Note"),
                    RecordOperation(
                        .create, recordName: "share-trip", recordType: Share.recordType,
                        share: ShareChange(
                            rootRecordName: "trip", participants: [.init(userRecordName: bob, permission: .readWrite)])),
                ], zoneName: "Work"))
        let share = try store.shares(c, .development)[0]
        _ = try store.acceptShares([ShareLookup(shortGUID: share.shortGUID)], c, .development, as: .user(bob))
    }

    /// Alice shares a new record `root` of her zone `Work` with bob, who accepts, as users do.
    public func shareWithBob(_ root: String) throws {
        let c = fixture.container
        guard let alice = try store.user(named: "alice", in: c)?.userRecordName,
            let bob = try store.user(named: "bob", in: c)?.userRecordName
        else { throw CloudStoreError.notFound("alice and bob are gone") }
        let saved = try store.database(c, .development, .private, as: .user(alice)).modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: root, recordType: "Note"),
                    RecordOperation(
                        .create, recordName: "share-" + root, recordType: Share.recordType,
                        share: ShareChange(rootRecordName: root, participants: [.init(userRecordName: bob, permission: .readOnly)])),
                ], zoneName: "Work"))
        guard let share = saved.last?.record?.sharing else { throw saved.last?.error ?? CloudStoreError.internalError("no share") }
        _ = try store.acceptShares([ShareLookup(shortGUID: share.shortGUID)], c, .development, as: .user(bob))
    }

    /// A `records/modify` body creating a note.
    public static func createNote(_ name: String) -> JSONValue {
        ["operations": [["operationType": "create", "record": ["recordName": .string(name), "recordType": "Note", "fields": [:]]]]]
    }

    /// Makes every later audit entry fail to be written: in the catalog's trail, and (on SQLite,
    /// where environment changes write it first) in the development environment's outbox.
    public func refuseAuditEntries() throws {
        if let database = fixture.postgresDatabase {
            try RawPostgres(url: database.url).execute(
                """
                CREATE FUNCTION refuse_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$ LANGUAGE plpgsql;
                CREATE TRIGGER refuse_audit BEFORE INSERT ON catalog.audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();
                """)
            return
        }
        try RawSQLite(path: fixture.directory + "/" + CloudStore.catalogFileName).execute(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit refused'); END;")
        try RawSQLite(path: fixture.directory + "/containers/\(container)/development.sqlite").execute(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_outbox BEGIN SELECT RAISE(ABORT, 'audit refused'); END;")
    }
}
