import CloudStore

extension ManagementAPI {
    /// An environment's security: grants, roles, the access simulator and a user's roles.
    static let securityRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/security", "security") { actions, input, actor in
            try actions.security(of: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.put, "/containers/:container/:environment/security/record-types/:type/grants", "setGrants") { actions, input, actor in
            try actions.setGrants(
                input.body["grants"] ?? .null, of: input.path("type"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/security/roles", "createRole", status: .created) { actions, input, actor in
            try actions.createRole(try input.string("name"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/security/roles/:role", "deleteRole") { actions, input, actor in
            try actions.deleteRole(input.path("role"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/security/simulate", "simulateAccess") { actions, input, actor in
            try actions.simulateAccess(
                subject: try input.string("subject"), permission: try input.string("permission"), recordType: try input.string("recordType"),
                recordName: try input.optionalString("recordName"), in: input.path("container"), environment: input.path("environment"),
                as: actor)
        },
        .json(.put, "/containers/:container/:environment/users/:user/roles", "setUserRoles") { actions, input, actor in
            try actions.setUserRoles(
                try input.strings("roles"), of: input.path("user"), in: input.path("container"), environment: input.path("environment"),
                as: actor)
        },
    ]
}
