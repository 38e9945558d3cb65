import CloudStore

extension ManagementAPI {
    /// The zones of a database.
    static let zoneRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/:database/zones", "zones") { actions, input, actor in
            try actions.zones(
                in: input.path("container"), environment: input.path("environment"), database: input.path("database"),
                user: input.query("user"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/:database/zones", "createZone", status: .created) { actions, input, actor in
            try actions.createZone(
                try input.string("zoneName"), in: input.path("container"), environment: input.path("environment"),
                database: input.path("database"), user: try input.optionalString("user") ?? input.query("user"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/:database/zones/:zone", "deleteZone") { actions, input, actor in
            try actions.deleteZone(
                input.path("zone"), in: input.path("container"), environment: input.path("environment"),
                database: input.path("database"), user: input.query("user"), as: actor)
        },
    ]
}
