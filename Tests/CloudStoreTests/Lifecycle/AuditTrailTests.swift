import TestSupport
import Testing

@testable import CloudStore

@Suite struct AuditTrailTests {
    @Test func entriesAreReadNewestFirstByOperatorContainerAndActionAndPaged() throws {
        let store = try TemporaryStore()
        for index in 0..<7 {
            store.clock.advance(by: 1000)
            try store.store.recordAudit(
                actor: index % 2 == 0 ? "alice" : "bob (token 1234)", operatorName: index % 2 == 0 ? "alice" : "bob",
                container: index < 5 ? "iCloud.com.example.A" : nil, environment: "development",
                action: index % 3 == 0 ? "record.delete" : "schema.deploy", target: "t\(index)")
        }
        let all = try store.store.auditEntries(AuditFilter())
        #expect(all.map(\.target) == ["t6", "t5", "t4", "t3", "t2", "t1", "t0"])
        #expect(try store.store.auditEntries(AuditFilter(operatorName: "ALICE")).map(\.target) == ["t6", "t4", "t2", "t0"])
        #expect(
            try store.store.auditEntries(AuditFilter(container: "iCloud.com.example.A", action: "record.")).map(\.target) == ["t3", "t0"])
        #expect(try store.store.auditEntries(AuditFilter(action: "schema")).map(\.target) == ["t5", "t4", "t2", "t1"])
        let first = try store.store.auditEntries(AuditFilter(limit: 3))
        let second = try store.store.auditEntries(AuditFilter(before: first.last?.id, limit: 3))
        #expect(first.map(\.target) + second.map(\.target) == ["t6", "t5", "t4", "t3", "t2", "t1"])
        #expect(all.first?.actor == "bob (token 1234)" || all.first?.actor == "alice")
    }

    @Test func entriesOlderThanTheRetentionAreForgotten() throws {
        let store = try TemporaryStore()
        try store.store.recordAudit(
            actor: "alice", operatorName: "alice", container: nil, environment: nil, action: "token.create", target: "old")
        store.clock.advance(by: store.store.configuration.auditRetention + 1)
        try store.store.recordAudit(
            actor: "alice", operatorName: "alice", container: nil, environment: nil, action: "token.create", target: "new")
        #expect(try store.store.auditEntries(AuditFilter()).map(\.target) == ["new"])
    }
}
