import CloudStore

extension ManagementAPI {
    /// The Notifications view: subscriptions with their firings, push tokens with their queues;
    /// the delivery tracer.
    static let notificationRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/notifications/queued", "queuedNotifications", needs: .reads(.appUsers)) {
            actions, input, actor in
            let limit = try input.queryInteger("limit").map { Int(clamping: $0) } ?? CloudStore.inspectedNotificationLimit
            return try actions.notifications(
                in: try input.container(), environment: try input.environment(), pushTokenID: input.query("pushToken"), limit: limit,
                as: actor
            ).json
        },
        .json(
            .get, "/containers/:container/:environment/:database/zones/:zone/records/:record/delivery", "traceDelivery",
            needs: .reads(.appUsers)
        ) {
            actions, input, actor in
            try actions.traceDelivery(
                record: input.path("record"), zone: input.path("zone"), in: try input.container(), environment: try input.environment(),
                database: try input.database(), user: input.query("user"), zoneOwner: input.query("owner"),
                subscriptionID: input.query("subscription"), as: actor
            ).json
        },
    ]
}
