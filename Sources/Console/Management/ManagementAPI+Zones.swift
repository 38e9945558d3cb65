import CloudStore

extension ManagementAPI {
    /// The zones of a database.
    static let zoneRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/:database/zones", "zones", needs: .reads(.data)) { actions, input, actor in
            try actions.zones(
                in: try input.container(), environment: try input.environment(), database: try input.database(), user: input.query("user"),
                as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/:database/zones", "createZone", needs: .changes(.data), status: .created) {
            actions, input, actor in
            let zoneName = try input.string("zoneName")
            let user = try input.optionalString("user") ?? input.query("user")
            return try actions.createZone(
                zoneName, in: try input.container(), environment: try input.environment(), database: try input.database(), user: user,
                as: actor
            ).json
        },
        .json(.delete, "/containers/:container/:environment/:database/zones/:zone", "deleteZone", needs: .changes(.data)) {
            actions, input, actor in
            try actions.deleteZone(
                input.path("zone"), in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: input.query("user"), as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/shared/zones/:zone/leave", "leaveSharedZone", needs: .changes(.data)) {
            actions, input, actor in
            try actions.leaveSharedZone(
                input.path("zone"), owner: try input.string("owner"), user: try input.string("user"), in: try input.container(),
                environment: try input.environment(), as: actor
            ).json
        },
    ]
}
