import CloudStore
import TestSupport
import Testing

/// On SQLite an environment's change writes its audit entry into the environment's own file,
/// whose outbox the catalog's audit trail takes it from: an entry outlives a move that fails, and
/// joins the trail once however often it is moved.
@Suite struct AuditOutboxTests {
    @Test(.enabled(if: TestBackend.isSQLite, "Reads the SQLite files"))
    func anEntryLeftInTheOutboxJoinsTheTrailOnceWhenTheEnvironmentIsOpened() throws {
        let fixture = try TemporaryStore()
        let catalog = try RawSQLite(path: fixture.directory + "/" + CloudStore.catalogFileName)
        let environment = try RawSQLite(path: fixture.directory + "/containers/\(fixture.container)/development.sqlite")
        // The move into the catalog fails, as if the process stopped between the commit and the move.
        try catalog.execute("CREATE TRIGGER refuse_move BEFORE INSERT ON audit_moves BEGIN SELECT RAISE(ABORT, 'stopped'); END;")
        try fixture.store.createRole("editor", in: fixture.container, .development, by: .local)
        #expect(try fixture.store.schema(fixture.container, .development).roles == ["editor"], "the change is made")
        #expect(try fixture.store.auditEntries(AuditFilter()).isEmpty)
        let waiting = try environment.rows("SELECT key, action, target FROM audit_outbox")
        #expect(waiting.map { Array($0.dropFirst()) } == [["security.role.create", "editor"]], "the entry waits in the environment's file")

        // Another process that opens the environment moves it.
        try catalog.execute("DROP TRIGGER refuse_move")
        let other = try fixture.anotherProcess()
        _ = try other.schema(fixture.container, .development)
        let trail = try other.auditEntries(AuditFilter())
        #expect(
            trail.map { "\($0.actor) \($0.action) \($0.container ?? "") \($0.environment ?? "") \($0.target)" } == [
                "local command line security.role.create \(fixture.container) development editor"
            ])
        #expect(try environment.integer("SELECT count(*) FROM audit_outbox") == 0)

        // Moved again (a move that stopped before the outbox forgot it), it is not written twice.
        let key = try #require(waiting.first?.first)
        try environment.execute(
            """
            INSERT INTO audit_outbox(key, time, actor, operator, container, environment, action, target)
            VALUES ('\(key)', \(trail[0].time), 'local command line', 'local', '\(fixture.container)', 'development', 'security.role.create', 'editor')
            """)
        #expect(try fixture.store.auditEntries(AuditFilter()).count == 1)
        #expect(try environment.integer("SELECT count(*) FROM audit_outbox") == 0)
    }
}
