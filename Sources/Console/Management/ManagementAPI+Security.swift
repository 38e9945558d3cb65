import CloudStore

extension ManagementAPI {
    /// An environment's security: grants, roles, the access simulator and a user's roles.
    static let securityRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/security", "security", needs: .reads(.schema)) { actions, input, actor in
            try actions.security(of: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.put, "/containers/:container/:environment/security/record-types/:type/grants", "setGrants", needs: .changes(.schema)) {
            actions, input, actor in
            let grants = try ManagementActions.grants(from: input.body["grants"] ?? .null)
            return try actions.setGrants(
                grants, of: input.path("type"), in: try input.container(), environment: try input.environment(), as: actor
            )
            .json
        },
        .json(.post, "/containers/:container/:environment/security/roles", "createRole", needs: .changes(.schema), status: .created) {
            actions, input, actor in
            let name = try input.string("name")
            return try actions.createRole(name, in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.delete, "/containers/:container/:environment/security/roles/:role", "deleteRole", needs: .changes(.schema)) {
            actions, input, actor in
            try actions.deleteRole(input.path("role"), in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.post, "/containers/:container/:environment/security/simulate", "simulateAccess", needs: .reads(.schema)) {
            actions, input, actor in
            let subject = try input.string("subject")
            let permission = try input.string("permission")
            let recordType = try input.string("recordType")
            let recordName = try input.optionalString("recordName")
            return try actions.simulateAccess(
                subject: subject, permission: permission, recordType: recordType, recordName: recordName, in: try input.container(),
                environment: try input.environment(), as: actor
            ).json
        },
        .json(.put, "/containers/:container/:environment/users/:user/roles", "setUserRoles", needs: .changes(.appUsers)) {
            actions, input, actor in
            let roles = try input.strings("roles")
            return try actions.setUserRoles(
                roles, of: input.path("user"), in: try input.container(), environment: try input.environment(), as: actor
            )
            .json
        },
    ]
}
