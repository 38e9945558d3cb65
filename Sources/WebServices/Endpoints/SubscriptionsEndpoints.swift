import CloudKitWire
import CloudStore

/// `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify`: the signed-in
/// caller's subscriptions in one database.
enum SubscriptionsEndpoints {
    /// `subscriptions/list` → `{subscriptions}`.
    static func list(_ context: APIContext) throws -> JSONValue {
        let database = try context.database()
        let owner = database.database.owner
        return .object(["subscriptions": .array(try database.subscriptions().map { SubscriptionWire.json($0, owner: owner) })])
    }

    /// `subscriptions/lookup`: `{subscriptions: [{subscriptionID}]}` → `{subscriptions}`.
    static func lookup(_ context: APIContext) throws -> JSONValue {
        let database = try context.database()
        var ids: [String] = []
        for entry in try context.body["subscriptions"].requiredArray() {
            ids.append(try entry["subscriptionID"].requiredString())
        }
        let owner = database.database.owner
        return .object(["subscriptions": .array(try database.lookupSubscriptions(ids).map { SubscriptionWire.json($0, owner: owner) })])
    }

    /// `subscriptions/modify`: `{operations: [{operationType, subscription}]}` → `{subscriptions}`.
    static func modify(_ context: APIContext) throws -> JSONValue {
        let database = try context.database()
        let wire = SubscriptionWire(schema: try context.store.schema(context.container, context.environment))
        var operations: [SubscriptionOperation] = []
        for operation in try context.body["operations"].requiredArray() {
            let typeName = try operation["operationType"].requiredString()
            guard let kind = SubscriptionOperation.Kind(rawValue: typeName) else {
                throw WebServicesError.badRequest("\(operation["operationType"].path) '\(typeName)' is not one of create, update, delete")
            }
            let subscription = operation["subscription"]
            if kind == .delete {
                // A delete needs only the identifier.
                try subscription.requireObjectIfPresent()
                let id = try subscription["subscriptionID"].requiredString()
                operations.append(SubscriptionOperation(kind, Subscription(subscriptionID: id, kind: .database)))
            } else {
                operations.append(SubscriptionOperation(kind, try wire.subscription(subscription)))
            }
        }
        let owner = database.database.owner
        return .object([
            "subscriptions": .array(try database.modifySubscriptions(operations).map { SubscriptionWire.json($0, owner: owner) })
        ])
    }
}
