import CloudStore

extension ManagementAPI {
    /// An environment's limits and usage.
    static let limitsRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/limits", "limits") { actions, input, actor in
            try actions.limits(of: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.put, "/containers/:container/:environment/limits", "setLimits") { actions, input, actor in
            try actions.setLimits(input.body, of: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/usage", "usage") { actions, input, actor in
            try actions.usage(of: input.path("container"), environment: input.path("environment"), range: input.query("range") ?? "day", as: actor)
        },
    ]
}
