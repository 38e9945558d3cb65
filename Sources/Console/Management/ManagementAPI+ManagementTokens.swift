import CloudStore

extension ManagementAPI {
    /// The tokens scripts and `cumulus --server` use to call this API.
    static let managementTokenRoutes: [ManagementRoute] = [
        .json(.get, "/management-tokens", "managementTokens", needs: .reads(.managementTokens)) { actions, _, actor in
            try actions.managementTokens(as: actor).json
        },
        .json(.post, "/management-tokens", "createManagementToken", needs: .changes(.managementTokens), status: .created) {
            actions, input, actor in
            try actions.createManagementToken(name: try input.optionalString("name") ?? "management token", as: actor).json
        },
        .json(.delete, "/management-tokens/:token", "revokeManagementToken", needs: .changes(.managementTokens)) { actions, input, actor in
            try actions.revokeManagementToken(input.path("token"), as: actor).json
        },
    ]
}
