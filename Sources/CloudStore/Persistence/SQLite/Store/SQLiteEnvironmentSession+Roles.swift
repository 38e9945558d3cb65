extension SQLiteEnvironmentSession {
    // MARK: - Roles held by users

    func roles(of user: String) throws -> Set<String> {
        Set(try connection.statement("SELECT role FROM user_roles WHERE user = ?").rows([.text(user)]) { $0.text(0) })
    }

    func roleAssignments() throws -> [String: Set<String>] {
        var assignments: [String: Set<String>] = [:]
        let rows = try connection.statement("SELECT user, role FROM user_roles ORDER BY user, role").rows { ($0.text(0), $0.text(1)) }
        for (user, role) in rows {
            assignments[user, default: []].insert(role)
        }
        return assignments
    }

    func setRoles(_ roles: Set<String>, of user: String) throws {
        try connection.statement("DELETE FROM user_roles WHERE user = ?").execute([.text(user)])
        let insert = try connection.statement("INSERT INTO user_roles(user, role) VALUES (?, ?)")
        for role in roles.sorted() { try insert.execute([.text(user), .text(role)]) }
    }

    /// Takes a role away from every user: the role left the schema.
    func removeRoleFromEveryone(_ role: String) throws {
        try connection.statement("DELETE FROM user_roles WHERE role = ?").execute([.text(role)])
    }
}
