import CloudStore

extension ManagementAPI {
    /// Deploying the schema, resetting development, and the audit trail and sign-in attacks.
    static let lifecycleRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/deployment", "schemaDifference") { actions, input, actor in
            try actions.schemaDifference(of: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/deployment", "deploySchema", status: .created) { actions, input, actor in
            try actions.deploySchema(of: try input.container(), as: actor).json
        },
        .json(.get, "/containers/:container/deployments", "schemaDeployments") { actions, input, actor in
            try actions.schemaDeployments(of: try input.container(), as: actor).json
        },
        .json(.get, "/audit", "auditTrail") { actions, input, actor in
            try actions.auditTrail(
                operatorName: input.query("operator"), container: input.query("container"), action: input.query("action"),
                before: input.query("before"), limit: Int(input.query("limit") ?? "") ?? 50, as: actor
            ).json
        },
        .json(.get, "/sign-in-attacks", "signInAttacks") { actions, _, actor in try actions.signInAttacks(as: actor).json },
        .json(.get, "/containers/:container/reset", "developmentContents") { actions, input, actor in
            try actions.developmentContents(of: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/reset", "resetDevelopment") { actions, input, actor in
            let confirmation = try input.string("confirm")
            return try actions.resetDevelopment(of: try input.container(), confirmation: confirmation, as: actor).json
        },
    ]
}
