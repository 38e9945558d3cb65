import CloudStore

extension ManagementAPI {
    /// The Notifications view: subscriptions with their firings, push tokens with their queues.
    static let notificationRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/notifications/queued", "queuedNotifications", needs: .reads(.appUsers)) {
            actions, input, actor in
            let limit = try input.queryInteger("limit").map { Int(clamping: $0) } ?? CloudStore.inspectedNotificationLimit
            return try actions.notifications(
                in: try input.container(), environment: try input.environment(), pushTokenID: input.query("pushToken"), limit: limit,
                as: actor
            ).json
        }
    ]
}
