import CloudStore

extension ManagementAPI {
    /// Seeds of development, personal fields, and masked copies from production to development.
    static let seedRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/seeds", "seeds", needs: .reads(.data, environment: .development)) { actions, input, actor in
            try actions.seeds(of: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/seeds", "saveSeed", needs: .changes(.data, environment: .development), status: .created) {
            actions, input, actor in
            try actions.saveSeed(
                named: try input.string("name"), of: try input.container(), database: try input.seedDatabase(),
                user: try input.optionalString("user"), recordTypes: try input.strings("recordTypes"), query: input.body["query"],
                as: actor
            ).json
        },
        .json(.delete, "/containers/:container/seeds/:seed", "deleteSeed", needs: .changes(.data, environment: .development)) {
            actions, input, actor in
            try actions.deleteSeed(named: input.path("seed"), of: try input.container(), as: actor).json
        },
        .json(.get, "/containers/:container/personal-fields", "personalFields", needs: .reads(.schema)) { actions, input, actor in
            try actions.personalFields(of: try input.container(), as: actor).json
        },
        .json(
            .put, "/containers/:container/personal-fields/:type/:field", "setPersonalField",
            needs: .changes(.schema, environment: .development)
        ) { actions, input, actor in
            try actions.setPersonal(
                try input.bool("personal"), field: input.path("field"), recordType: input.path("type"), of: try input.container(), as: actor
            ).json
        },
        .json(.post, "/containers/:container/copy-to-development", "copyToDevelopment", needs: .changes(.data, environment: .development)) {
            actions, input, actor in
            try actions.copyToDevelopment(
                of: try input.container(), database: try input.seedDatabase(), user: try input.optionalString("user"),
                recordTypes: try input.strings("recordTypes"), query: input.body["query"], as: actor
            ).json
        },
    ]
}

extension ManagementInput {
    /// The body's `database` (`public` when absent).
    func seedDatabase() throws -> DatabaseScope {
        try optionalString("database").map { try DatabaseScope(parsing: $0) } ?? .public
    }
}
