import CloudStore

extension ManagementAPI {
    /// Subscriptions, shares, push tokens, notification queues and change logs.
    static let syncRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/subscriptions", "subscriptions", needs: .reads(.appUsers)) {
            actions, input, actor in
            try actions.subscriptions(in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(
            .delete, "/containers/:container/:environment/:database/subscriptions/:user/:subscription", "deleteSubscription",
            needs: .changes(.appUsers)
        ) {
            actions, input, actor in
            let container = try input.container()
            let environment = try input.environment()
            return try actions.deleteSubscription(
                input.path("subscription"), of: input.path("user"), database: try input.database(), owner: input.query("owner"),
                in: container, environment: environment, as: actor
            ).json
        },
        .json(.get, "/containers/:container/:environment/shares", "shares", needs: .reads(.appUsers)) { actions, input, actor in
            try actions.shares(in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.delete, "/containers/:container/:environment/shares/:owner/:zone/:share", "deleteShare", needs: .changes(.appUsers)) {
            actions, input, actor in
            let container = try input.container()
            try input.requireUsers(input.path("owner"), in: container)
            return try actions.deleteShare(
                input.path("share"), zone: input.path("zone"), owner: input.path("owner"), in: container,
                environment: try input.environment(), as: actor
            ).json
        },
        .json(
            .delete, "/containers/:container/:environment/shares/:owner/:zone/:share/participants/:user", "removeShareParticipant",
            needs: .changes(.appUsers)
        ) {
            actions, input, actor in
            let container = try input.container()
            try input.requireUsers(input.path("owner"), input.path("user"), in: container)
            return try actions.removeShareParticipant(
                input.path("user"), share: input.path("share"), zone: input.path("zone"), owner: input.path("owner"),
                in: container, environment: try input.environment(), as: actor
            ).json
        },
        .json(.get, "/containers/:container/:environment/push-tokens", "pushTokens", needs: .reads(.appUsers)) { actions, input, actor in
            let container = try input.container()
            try input.requireUsers(input.query("user"), in: container)
            return try actions.pushTokens(in: container, environment: try input.environment(), user: input.query("user"), as: actor).json
        },
        .json(.delete, "/containers/:container/:environment/push-tokens/:id", "revokePushToken", needs: .changes(.appUsers)) {
            actions, input, actor in
            try actions.revokePushToken(input.path("id"), in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.get, "/containers/:container/:environment/notifications", "notificationQueues", needs: .reads(.appUsers)) {
            actions, input, actor in
            try actions.notificationQueues(in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.get, "/containers/:container/:environment/:database/zones/:zone/changes", "changeLog", needs: .reads(.data)) {
            actions, input, actor in
            let range = ChangeLogRange(
                after: try input.queryInteger("after"), before: try input.queryInteger("before"), since: try input.queryInteger("since"),
                recordNamePrefix: input.query("recordName"),
                limit: Int(try input.queryInteger("limit") ?? Int64(CloudStore.changeLogPageSize)))
            return try actions.changeLog(
                zone: input.path("zone"), in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: input.query("user"), zoneOwner: input.query("owner"), range: range, as: actor
            ).json
        },
        .json(.get, "/containers/:container/:environment/:database/zones/:zone/changes/next", "nextChanges", needs: .reads(.data)) {
            actions, input, actor in
            try actions.nextChanges(
                zone: input.path("zone"), syncToken: input.query("syncToken"), in: try input.container(),
                environment: try input.environment(),
                database: try input.database(), user: input.query("user"), zoneOwner: input.query("owner"), reader: input.query("reader"),
                as: actor
            ).json
        },
    ]
}
