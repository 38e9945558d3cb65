import TestSupport
import Testing

@testable import CloudStore

/// The one decision of what an operator may do (``OperatorAccess/check(_:on:)``), walked over
/// every role, area, kind of action, environment and database against the rules as written:
/// owner everything; developer everything in development and reading production, no
/// credentials and no operators; viewer reading schema, logs, usage and the public database only.
@Suite struct OperatorAccessTests {
    static let a = try! ContainerIdentifier("iCloud.com.example.A")
    static let b = try! ContainerIdentifier("iCloud.com.example.B")

    /// The rules as the issue states them, written apart from the code that decides.
    static func expected(_ role: OperatorRole, _ permission: OperatorPermission, _ target: OperatorTarget) -> Bool {
        let environment = permission.environment ?? target.environment
        switch role {
        case .owner:
            return true
        case .developer:
            // Backups hold every credential and every user's data: owners only.
            if permission.area == .operators || permission.area == .backups { return false }
            if !permission.changesState { return true }
            switch permission.area {
            case .credentials, .containers: return false
            case .managementTokens: return true
            default: return environment == .development
            }
        case .viewer:
            if permission.changesState { return false }
            switch permission.area {
            case .containers, .schema, .logs, .usage: return true
            case .data: return target.database == .public
            default: return false
            }
        }
    }

    static var permissions: [OperatorPermission] {
        OperatorArea.allCases.flatMap { area in
            [false, true].flatMap { changes in
                [nil, Environment.development, .production].map {
                    OperatorPermission(area: area, changesState: changes, environment: $0)
                }
            }
        }
    }

    static var targets: [OperatorTarget] {
        [nil, Environment.development, .production].flatMap { environment in
            [nil, DatabaseScope.public, .private, .shared].map { OperatorTarget(container: a, environment: environment, database: $0) }
        }
    }

    @Test(arguments: OperatorRole.allCases)
    func everyRoleDecidesAsTheRulesSay(_ role: OperatorRole) {
        let access = OperatorAccess(role: role)
        var refused = 0
        for permission in Self.permissions {
            for target in Self.targets {
                let allowed = access.allows(permission, on: target)
                #expect(allowed == Self.expected(role, permission, target), "\(role) \(permission) on \(target)")
                if !allowed { refused += 1 }
            }
        }
        #expect(role == .owner ? refused == 0 : refused > 0)
    }

    @Test func aRefusalIsAccessDeniedSayingWhy() {
        let production = OperatorTarget(container: Self.a, environment: .production, database: .public)
        #expect(throws: CloudStoreError.accessDenied("A developer changes the development environment only; production is read-only")) {
            try OperatorAccess(role: .developer).check(.changes(.data), on: production)
        }
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try OperatorAccess(role: .viewer).check(.changes(.schema), on: production)
        }
        #expect(throws: CloudStoreError.accessDenied("A viewer does not read the records of private or shared databases")) {
            try OperatorAccess(role: .viewer).check(.reads(.data), on: OperatorTarget(container: Self.a, database: .private))
        }
        #expect(throws: CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")) {
            try OperatorAccess(role: .developer).check(.reads(.operators), on: OperatorTarget())
        }
    }

    /// An operator limited to container A is refused container B whatever the role, and what
    /// spans every container, but keeps the list of containers and their own management tokens.
    @Test(arguments: OperatorRole.allCases)
    func anOperatorLimitedToAContainerIsRefusedTheOthers(_ role: OperatorRole) {
        let access = OperatorAccess(role: role, containers: [Self.a])
        for permission in Self.permissions {
            for target in Self.targets {
                var other = target
                other.container = Self.b
                #expect(!access.allows(permission, on: other), "\(permission) on B")
                #expect(access.allows(permission, on: target) == Self.expected(role, permission, target), "\(permission) on A")
            }
        }
        #expect(access.allows(.reads(.containers)))
        #expect(access.allows(.reads(.managementTokens)) == (role != .viewer))
        #expect(!access.allows(.reads(.logs)), "the audit trail spans every container")
        #expect(!access.allows(.changes(.containers)))
        #expect(throws: CloudStoreError.accessDenied("This operator may act only in iCloud.com.example.A, not in iCloud.com.example.B")) {
            try access.check(.reads(.schema), on: OperatorTarget(container: Self.b))
        }
    }
}

/// Operators' roles as the store keeps and enforces them, on the backend of the run.
@Suite struct OperatorRoleStoreTests {
    @Test func operatorsAreOwnersOfEveryContainerUnlessGivenARole() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let plain = try store.addOperator("root", password: "operator password")
        #expect(plain.role == .owner && plain.containers.isEmpty)
        let vera = try store.addOperator(
            "vera", password: "operator password", role: .viewer, containers: [temporary.container], by: .local)
        #expect(
            try store.operators().map { "\($0.name) \($0.role) \($0.containers)" } == [
                "root owner []", "vera viewer [\(temporary.container)]",
            ])
        #expect(try store.operatorAccess(of: .token(operatorName: "vera", tokenID: "x")) == vera.access)
        #expect(try store.operatorAccess(of: .local) == .everything)
        #expect(throws: CloudStoreError.notFound("Container iCloud.com.example.Missing does not exist")) {
            try store.addOperator(
                "ghost", password: "operator password", role: .viewer, containers: [try ContainerIdentifier("iCloud.com.example.Missing")])
        }
        #expect(try store.operators().count == 2)
    }

    @Test func anOwnerChangesARoleAuditedAndTheStoreRefusesEveryoneElse() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.addOperator("root", password: "operator password")
        try store.addOperator("dev", password: "operator password", role: .developer)
        let root = OperatorIdentity.session(operatorName: "root", sessionID: "s")
        let dev = OperatorIdentity.token(operatorName: "dev", tokenID: "t")
        let changed = try store.setOperatorRole(.viewer, containers: [temporary.container], of: "DEV", by: root)
        #expect(changed.name == "dev" && changed.role == .viewer && changed.containers == [temporary.container])
        let entry = try #require(try store.auditEntries(AuditFilter(limit: 1)).first)
        #expect(entry.action == "operator.role")
        #expect(entry.target == "dev as viewer of \(temporary.container)")
        #expect(entry.operatorName == "root")

        // The store itself refuses: a developer or a viewer changes no operator.
        try store.setOperatorRole(.developer, of: "dev", by: root)
        let before = try store.operators()
        let audited = try store.auditEntries(AuditFilter(limit: 100)).count
        #expect(throws: CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")) {
            try store.setOperatorRole(.owner, of: "dev", by: dev)
        }
        #expect(throws: CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")) {
            try store.addOperator("mallory", password: "operator password", by: dev)
        }
        #expect(throws: CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")) {
            try store.removeOperator("root", by: dev)
        }
        #expect(throws: CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")) {
            try store.setOperatorPassword("a new long password", of: "root", by: dev)
        }
        #expect(try store.operators() == before)
        #expect(try store.auditEntries(AuditFilter(limit: 100)).count == audited)
    }

    @Test func theLastOwnerOfEveryContainerStaysOne() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.addOperator("root", password: "operator password")
        #expect(throws: CloudStoreError.accessDenied("root is the last owner of every container; make another owner first")) {
            try store.setOperatorRole(.developer, of: "root", by: .local)
        }
        #expect(throws: CloudStoreError.accessDenied("root is the last owner of every container; make another owner first")) {
            try store.setOperatorRole(.owner, containers: [temporary.container], of: "root", by: .local)
        }
        #expect(throws: CloudStoreError.accessDenied("root is the last owner of every container; make another owner first")) {
            try store.removeOperator("root", by: .session(operatorName: "root", sessionID: "s"))
        }
        try store.addOperator("second", password: "operator password")
        try store.setOperatorRole(.developer, of: "root", by: .local)
        #expect(try store.operatorAccess(of: .session(operatorName: "root", sessionID: "s")) == OperatorAccess(role: .developer))
    }

    @Test func anOperatorWhoIsNoOwnerRevokesOnlyTheirOwnManagementTokens() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.addOperator("root", password: "operator password")
        try store.addOperator("dev", password: "operator password", role: .developer)
        let roots = try store.createManagementToken(for: "root", name: "root's").token
        let devs = try store.createManagementToken(for: "dev", name: "dev's").token
        let dev = OperatorIdentity.session(operatorName: "dev", sessionID: "s")
        #expect(throws: CloudStoreError.accessDenied("Only an owner of every container revokes another operator's management token")) {
            try store.revokeManagementToken(roots.id, by: dev)
        }
        #expect(try store.managementTokens().map(\.id).sorted() == [roots.id, devs.id].sorted())
        #expect(try store.managementTokens(visibleTo: dev).map(\.id) == [devs.id])
        #expect(try store.managementTokens(visibleTo: .local).count == 2)
        try store.revokeManagementToken(devs.id, by: dev)
        try store.revokeManagementToken(roots.id, by: .session(operatorName: "root", sessionID: "r"))
        #expect(try store.managementTokens().isEmpty)
    }

    @Test func aRemovedOperatorHasNoAccess() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.addOperator("root", password: "operator password")
        try store.addOperator("gone", password: "operator password", role: .viewer)
        try store.removeOperator("gone")
        #expect(throws: CloudStoreError.authenticationFailed("The operator gone no longer exists")) {
            try store.operatorAccess(of: .token(operatorName: "gone", tokenID: "t"))
        }
    }
}
