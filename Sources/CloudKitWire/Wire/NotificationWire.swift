import CloudStore

/// Notifications as the web courier hands them out: APNs-style JSON, `aps` (what the
/// subscription's notification info asks to show) and `ck`, which CloudKit JS parses:
/// `qry` for a query subscription, `fet` for a zone one, `met` for a database one.
public enum NotificationWire {
    /// The notification's JSON.
    public static func json(_ notification: QueuedNotification) -> JSONValue {
        let scope: Int64 =
            switch notification.databaseScope {
            case .public: 0
            case .private: 1
            case .shared: 2
            }
        var ck: JSONObject = [
            "nid": .string(notification.notificationID), "cid": .string(notification.container.rawValue),
            "ckuserid": .string(notification.userRecordName),
            // Apple's payloads carry 2 here; its meaning is undocumented and no client reads it.
            "ce": .integer(2),
        ]
        switch notification.reason {
        case .query(let recordName, let firesOn, let zoneID, let fields):
            let reason: Int64 =
                switch firesOn {
                case .create: 1
                case .update: 2
                case .delete: 3
                }
            var query: JSONObject = [
                "sid": .string(notification.subscriptionID), "rid": .string(recordName), "fo": .integer(reason),
                "zid": .string(zoneID.zoneName), "zoid": .string(zoneID.ownerRecordName), "dbs": .integer(scope),
            ]
            if !fields.isEmpty {
                let encoder = FieldValueEncoder()
                query["af"] = .object(JSONObject(fields.sorted { $0.key < $1.key }.map { ($0.key, encoder.json($0.value)) }))
            }
            ck["qry"] = .object(query)
        case .zone(let zoneID):
            ck["fet"] = .object([
                "sid": .string(notification.subscriptionID), "zid": .string(zoneID.zoneName), "zoid": .string(zoneID.ownerRecordName),
                "dbs": .integer(scope),
            ])
        case .database:
            ck["met"] = .object(["sid": .string(notification.subscriptionID), "dbs": .integer(scope)])
        }
        var object: JSONObject = [:]
        if let aps = aps(notification.notificationInfo) { object["aps"] = aps }
        object["ck"] = .object(ck)
        return .object(object)
    }

    /// `aps`, present only when the notification info asks for an alert, a sound, a badge, a
    /// wake-up or a category. The alert is a dictionary: CloudKit JS ignores a string one.
    private static func aps(_ info: NotificationInfo?) -> JSONValue? {
        guard let info else { return nil }
        var alert = JSONObject()
        if let body = info.alertBody { alert["body"] = .string(body) }
        if let key = info.alertLocalizationKey { alert["loc-key"] = .string(key) }
        if let args = info.alertLocalizationArgs { alert["loc-args"] = .array(args.map(JSONValue.string)) }
        if let key = info.alertActionLocalizationKey { alert["action-loc-key"] = .string(key) }
        if let image = info.alertLaunchImage { alert["launch-image"] = .string(image) }
        var aps = JSONObject()
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let sound = info.soundName { aps["sound"] = .string(sound) }
        if info.shouldBadge { aps["badge"] = .integer(1) }
        if info.shouldSendContentAvailable { aps["content-available"] = .integer(1) }
        if let category = info.category { aps["category"] = .string(category) }
        return aps.isEmpty ? nil : .object(aps)
    }
}
