import CloudStore

extension ManagementAPI {
    /// An environment's limits and usage: over time, and in figures (the summary).
    static let limitsRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/limits", "limits", needs: .reads(.usage)) { actions, input, actor in
            try actions.limits(of: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.put, "/containers/:container/:environment/limits", "setLimits", needs: .changes(.usage)) { actions, input, actor in
            let container = try input.container()
            let environment = try input.environment()
            return try actions.setLimits(LimitsChange(json: input.body), of: container, environment: environment, as: actor).json
        },
        .json(.get, "/containers/:container/:environment/usage", "usage", needs: .reads(.usage)) { actions, input, actor in
            let range = try ManagementActions.usageRange(input.query("range") ?? "day")
            return try actions.usage(of: try input.container(), environment: try input.environment(), range: range, as: actor).json
        },
        .json(.get, "/containers/:container/:environment/usage/summary", "usageSummary", needs: .reads(.usage)) { actions, input, actor in
            // Without a range, the one the Usage page shows first: the shortest that holds the last week's calls.
            let range = try input.query("range").flatMap { $0.isEmpty ? nil : try ManagementActions.usageRange($0) }
            return try actions.usageOverview(
                of: try input.container(), environment: try input.environment(), range: range, as: actor
            ).summary.json
        },
    ]
}
