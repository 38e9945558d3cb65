import CloudStore

extension ManagementAPI {
    /// Subscriptions, shares, push tokens, notification queues and change logs.
    static let syncRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/subscriptions", "subscriptions") { actions, input, actor in
            try actions.subscriptions(in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/:database/subscriptions/:user/:subscription", "deleteSubscription") {
            actions, input, actor in
            try actions.deleteSubscription(
                input.path("subscription"), of: input.path("user"), database: input.path("database"), owner: input.query("owner"),
                in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/shares", "shares") { actions, input, actor in
            try actions.shares(in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/shares/:owner/:zone/:share", "deleteShare") { actions, input, actor in
            try actions.deleteShare(
                input.path("share"), zone: input.path("zone"), owner: input.path("owner"), in: input.path("container"),
                environment: input.path("environment"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/shares/:owner/:zone/:share/participants/:user", "removeShareParticipant") {
            actions, input, actor in
            try actions.removeShareParticipant(
                input.path("user"), share: input.path("share"), zone: input.path("zone"), owner: input.path("owner"),
                in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/push-tokens", "pushTokens") { actions, input, actor in
            try actions.pushTokens(in: input.path("container"), environment: input.path("environment"), user: input.query("user"), as: actor)
        },
        .json(.delete, "/containers/:container/:environment/push-tokens/:id", "revokePushToken") { actions, input, actor in
            try actions.revokePushToken(input.path("id"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/notifications", "notificationQueues") { actions, input, actor in
            try actions.notificationQueues(in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/:database/zones/:zone/changes", "changeLog") { actions, input, actor in
            try actions.changeLog(
                zone: input.path("zone"), in: input.path("container"), environment: input.path("environment"),
                database: input.path("database"), user: input.query("user"), after: try input.queryInteger("after"),
                since: try input.queryInteger("since"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/:database/zones/:zone/changes/next", "nextChanges") { actions, input, actor in
            try actions.nextChanges(
                zone: input.path("zone"), syncToken: input.query("syncToken"), in: input.path("container"),
                environment: input.path("environment"), database: input.path("database"), user: input.query("user"), as: actor)
        },
    ]
}
