import CloudStore

extension ManagementAPI {
    /// Deploying the schema, resetting development, and the audit trail and sign-in attacks.
    static let lifecycleRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/deployment", "schemaDifference", needs: .reads(.schema)) { actions, input, actor in
            try actions.schemaDifference(
                of: try input.container(), filling: input.query("filling")?.split(separator: ",").map(String.init), as: actor
            ).json
        },
        .json(
            .post, "/containers/:container/deployment", "deploySchema", needs: .changes(.schema, environment: .production), status: .created
        ) { actions, input, actor in
            try actions.deploySchema(of: try input.container(), filling: try input.strings("filling"), as: actor).json
        },
        .json(.get, "/containers/:container/schema-guard", "schemaGuard", needs: .reads(.schema)) { actions, input, actor in
            try actions.schemaGuard(of: try input.container(), as: actor).json
        },
        .json(.get, "/containers/:container/deployments", "schemaDeployments", needs: .reads(.schema)) { actions, input, actor in
            try actions.schemaDeployments(of: try input.container(), as: actor).json
        },
        .json(.get, "/audit", "auditTrail", needs: .reads(.logs)) { actions, input, actor in
            try actions.auditTrail(
                operatorName: input.query("operator"), container: input.query("container"), action: input.query("action"),
                before: input.query("before"), limit: Int(input.query("limit") ?? "") ?? 50, as: actor
            ).json
        },
        .response(.get, "/audit/export", "exportAuditTrail", needs: .reads(.logs), body: .raw) { api, input, actor in
            let bytes = try api.actions.exportAuditTrail(
                operatorName: input.query("operator"), container: input.query("container"), action: input.query("action"), as: actor)
            return file(bytes, contentType: "application/x-ndjson; charset=utf-8")
        },
        .json(.get, "/sign-in-attacks", "signInAttacks", needs: .reads(.operators)) { actions, _, actor in
            try actions.signInAttacks(as: actor).json
        },
        .json(.get, "/containers/:container/reset", "developmentContents", needs: .reads(.data, environment: .development)) {
            actions, input, actor in
            try actions.developmentContents(of: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/reset", "resetDevelopment", needs: .changes(.data, environment: .development)) {
            actions, input, actor in
            let confirmation = try input.string("confirm")
            return try actions.resetDevelopment(
                of: try input.container(), confirmation: confirmation, seed: try input.optionalString("seed"), as: actor
            ).json
        },
    ]
}
