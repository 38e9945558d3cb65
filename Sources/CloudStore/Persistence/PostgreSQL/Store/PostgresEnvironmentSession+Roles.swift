extension PostgresEnvironmentSession {
    // MARK: - Roles held by users

    func roles(of user: String) throws -> Set<String> { try schemaWriter().roles(of: user) }

    func roleAssignments() throws -> [String: Set<String>] { try schemaWriter().roleAssignments() }

    func setRoles(_ roles: Set<String>, of user: String) throws { try schemaWriter().setRoles(roles, of: user) }
}
