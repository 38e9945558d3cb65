import CloudStore

/// Subscription Dictionaries, both ways: `{subscriptionID, subscriptionType, query, zoneID,
/// zoneWide, firesOn, firesOnce, notificationInfo}`.
public struct SubscriptionWire {
    /// The schema filter values are read against.
    public let schema: Schema

    /// A reader and writer of subscriptions under `schema`.
    public init(schema: Schema) { self.schema = schema }

    /// Reads a subscription. `subscriptionType` defaults to `query` when a query is given and
    /// `zone` otherwise; a query subscription is zone-wide unless it names a zone and says
    /// `zoneWide: false` (CloudKit's default is zone-wide), and fires on every change unless
    /// `firesOn` says otherwise.
    public func subscription(_ wire: WireValue) throws(WireError) -> Subscription {
        try wire.requireObjectIfPresent()
        guard wire.isPresent else { throw WireError("\(wire.path) is required") }
        let id = try wire["subscriptionID"].requiredString()
        let typeName = try wire["subscriptionType"].string() ?? (wire["query"].isPresent ? "query" : "zone")
        let zoneName: String? = wire["zoneID"].isPresent ? try ZoneWire.zoneName(wire["zoneID"]) : nil
        let kind: Subscription.Kind
        switch typeName {
        case "query":
            let query = try QueryDecoder(schema: schema).query(wire["query"])
            let zoneWide = try wire["zoneWide"].bool() ?? (zoneName == nil)
            var firesOn: Set<Subscription.FiresOn> = Set(Subscription.FiresOn.allCases)
            if let names = try wire["firesOn"].strings() {
                firesOn = []
                for name in names {
                    guard let value = Subscription.FiresOn(rawValue: name) else {
                        throw WireError("\(wire["firesOn"].path) '\(name)' is not one of create, update, delete")
                    }
                    firesOn.insert(value)
                }
            }
            kind = .query(
                query, zoneName: zoneWide ? nil : (zoneName ?? ZoneID.defaultZoneName), firesOn: firesOn,
                firesOnce: try wire["firesOnce"].bool() ?? false)
        case "zone":
            kind = .zone(zoneName: zoneName ?? ZoneID.defaultZoneName)
        case "database":
            kind = .database
        default:
            throw WireError("\(wire["subscriptionType"].path) '\(typeName)' is not one of query, zone, database")
        }
        return Subscription(subscriptionID: id, kind: kind, notificationInfo: try notificationInfo(wire["notificationInfo"]))
    }

    private func notificationInfo(_ wire: WireValue) throws(WireError) -> NotificationInfo? {
        try wire.requireObjectIfPresent()
        guard wire.isPresent else { return nil }
        return NotificationInfo(
            alertBody: try wire["alertBody"].string(), alertLocalizationKey: try wire["alertLocalizationKey"].string(),
            alertLocalizationArgs: try wire["alertLocalizationArgs"].strings(),
            alertActionLocalizationKey: try wire["alertActionLocalizationKey"].string(),
            alertLaunchImage: try wire["alertLaunchImage"].string(),
            soundName: try wire["soundName"].string(), shouldBadge: try wire["shouldBadge"].bool() ?? false,
            shouldSendContentAvailable: try wire["shouldSendContentAvailable"].bool() ?? false, category: try wire["category"].string(),
            additionalFields: try wire.first("additionalFields", "desiredKeys").strings())
    }

    /// A Subscription Dictionary.
    public static func json(_ subscription: Subscription, owner: String) -> JSONValue {
        var object: JSONObject = [
            "subscriptionID": .string(subscription.subscriptionID), "subscriptionType": .string(subscription.typeName),
        ]
        switch subscription.kind {
        case .query(let query, let zoneName, let firesOn, let firesOnce):
            object["query"] = json(query)
            if let zoneName { object["zoneID"] = ZoneWire.json(ZoneID(zoneName: zoneName, ownerRecordName: owner)) }
            object["zoneWide"] = .bool(zoneName == nil)
            object["firesOn"] = .array(Subscription.FiresOn.allCases.filter(firesOn.contains).map { .string($0.rawValue) })
            object["firesOnce"] = .bool(firesOnce)
        case .zone(let zoneName):
            object["zoneID"] = ZoneWire.json(ZoneID(zoneName: zoneName, ownerRecordName: owner))
        case .database:
            break
        }
        if let info = subscription.notificationInfo { object["notificationInfo"] = json(info) }
        return .object(object)
    }

    private static func json(_ query: Query) -> JSONValue {
        let encoder = FieldValueEncoder()
        let filters: [JSONValue] = query.filters.map { filter in
            var object: JSONObject = ["comparator": .string(filter.comparator.rawValue)]
            switch filter.field {
            case .system(let system): object["systemFieldName"] = .string(system.rawValue)
            case .field(let name): object["fieldName"] = .string(name)
            }
            object["fieldValue"] = encoder.encode(filter.value)
            if let distance = filter.distance { object["distance"] = .double(distance) }
            return .object(object)
        }
        return .object(["recordType": .string(query.recordType), "filterBy": .array(filters)])
    }

    private static func json(_ info: NotificationInfo) -> JSONValue {
        var object = JSONObject()
        let texts: [(String, String?)] = [
            ("alertBody", info.alertBody), ("alertLocalizationKey", info.alertLocalizationKey),
            ("alertActionLocalizationKey", info.alertActionLocalizationKey), ("alertLaunchImage", info.alertLaunchImage),
            ("soundName", info.soundName), ("category", info.category),
        ]
        for (key, value) in texts { if let value { object[key] = .string(value) } }
        if let args = info.alertLocalizationArgs { object["alertLocalizationArgs"] = .array(args.map(JSONValue.string)) }
        if let fields = info.additionalFields { object["additionalFields"] = .array(fields.map(JSONValue.string)) }
        object["shouldBadge"] = .bool(info.shouldBadge)
        object["shouldSendContentAvailable"] = .bool(info.shouldSendContentAvailable)
        return .object(object)
    }

    /// A Subscription Fetch Error: `{subscriptionID, serverErrorCode, reason}`.
    public static func error(_ id: String, _ error: CloudStoreError) -> JSONValue {
        let failure = CloudKitError(error)
        return .object([
            "subscriptionID": .string(id), "reason": .string(failure.reason), "serverErrorCode": .string(failure.serverErrorCode),
        ])
    }

    /// One subscription's outcome in a `subscriptions` array.
    public static func json(_ result: SubscriptionResult, owner: String) -> JSONValue {
        switch result {
        case .subscription(let subscription): json(subscription, owner: owner)
        case .deleted(let id): .object(["subscriptionID": .string(id), "deleted": .bool(true)])
        case .failure(let id, let failure): error(id, failure)
        }
    }
}
