/// Subscriptions and queued notifications as storage keeps them: compact binary, versioned by
/// a leading format byte, field values in the records' own encoding.
enum SubscriptionCodec {
    private static let format: UInt8 = 1
    private static var damaged: CloudStoreError { .internalError("A stored subscription or notification is damaged") }

    // MARK: - Subscriptions

    static func encode(_ subscription: Subscription) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(format)
        writer.string(subscription.subscriptionID)
        switch subscription.kind {
        case .query(let query, let zoneName, let firesOn, let firesOnce):
            writer.byte(1)
            encode(query, into: &writer)
            writer.optionalString(zoneName)
            writer.byte(firesOn.reduce(0) { $0 | Self.bit($1) })
            writer.byte(firesOnce ? 1 : 0)
        case .zone(let zoneName):
            writer.byte(2)
            writer.string(zoneName)
        case .database:
            writer.byte(3)
        }
        encode(subscription.notificationInfo, into: &writer)
        return writer.bytes
    }

    static func decodeSubscription(_ bytes: [UInt8]) throws -> Subscription {
        var reader = BinaryReader(bytes: bytes, damaged: damaged)
        guard try reader.byte() == format else { throw damaged }
        let id = try reader.string()
        let kind: Subscription.Kind
        switch try reader.byte() {
        case 1:
            let query = try decodeQuery(&reader)
            let zoneName = try reader.optionalString()
            let bits = try reader.byte()
            let firesOn = Set(Subscription.FiresOn.allCases.filter { bits & Self.bit($0) != 0 })
            kind = .query(query, zoneName: zoneName, firesOn: firesOn, firesOnce: try reader.byte() == 1)
        case 2:
            kind = .zone(zoneName: try reader.string())
        case 3:
            kind = .database
        default:
            throw damaged
        }
        return Subscription(subscriptionID: id, kind: kind, notificationInfo: try decodeInfo(&reader))
    }

    private static func bit(_ firesOn: Subscription.FiresOn) -> UInt8 {
        switch firesOn {
        case .create: 1
        case .update: 2
        case .delete: 4
        }
    }

    private static func encode(_ query: Query, into writer: inout BinaryWriter) {
        writer.string(query.recordType)
        writer.varint(UInt64(query.filters.count))
        for filter in query.filters {
            writer.string(filter.field.schemaName)
            writer.string(filter.comparator.rawValue)
            writer.blob(RecordPayloadCodec.encode(["v": filter.value]))
            writer.optionalDouble(filter.distance)
        }
    }

    private static func decodeQuery(_ reader: inout BinaryReader) throws -> Query {
        let recordType = try reader.string()
        var filters: [QueryFilter] = []
        for _ in 0..<(try reader.count()) {
            let field = QueryField(fieldName: try reader.string())
            guard let comparator = Comparator(rawValue: try reader.string()),
                let value = try RecordPayloadCodec.decode(try reader.blob())["v"]
            else { throw damaged }
            filters.append(QueryFilter(field, comparator, value, distance: try reader.optionalDouble()))
        }
        return Query(recordType: recordType, filters: filters)
    }

    private static func encode(_ info: NotificationInfo?, into writer: inout BinaryWriter) {
        guard let info else { return writer.byte(0) }
        writer.byte(1)
        for text in [
            info.alertBody, info.alertLocalizationKey, info.alertActionLocalizationKey, info.alertLaunchImage, info.soundName,
            info.category,
        ] {
            writer.optionalString(text)
        }
        encode(info.alertLocalizationArgs, into: &writer)
        encode(info.additionalFields, into: &writer)
        writer.byte((info.shouldBadge ? 1 : 0) | (info.shouldSendContentAvailable ? 2 : 0))
    }

    private static func decodeInfo(_ reader: inout BinaryReader) throws -> NotificationInfo? {
        guard try reader.byte() == 1 else { return nil }
        var info = NotificationInfo()
        info.alertBody = try reader.optionalString()
        info.alertLocalizationKey = try reader.optionalString()
        info.alertActionLocalizationKey = try reader.optionalString()
        info.alertLaunchImage = try reader.optionalString()
        info.soundName = try reader.optionalString()
        info.category = try reader.optionalString()
        info.alertLocalizationArgs = try decodeStrings(&reader)
        info.additionalFields = try decodeStrings(&reader)
        let flags = try reader.byte()
        info.shouldBadge = flags & 1 != 0
        info.shouldSendContentAvailable = flags & 2 != 0
        return info
    }

    private static func encode(_ strings: [String]?, into writer: inout BinaryWriter) {
        guard let strings else { return writer.byte(0) }
        writer.byte(1)
        writer.varint(UInt64(strings.count))
        for string in strings { writer.string(string) }
    }

    private static func decodeStrings(_ reader: inout BinaryReader) throws -> [String]? {
        guard try reader.byte() == 1 else { return nil }
        return try (0..<(try reader.count())).map { _ in try reader.string() }
    }

    // MARK: - Notifications

    static func encode(_ notification: QueuedNotification) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(format)
        writer.string(notification.notificationID)
        writer.string(notification.subscriptionID)
        writer.string(notification.container.rawValue)
        writer.string(notification.environment.rawValue)
        writer.string(notification.userRecordName)
        writer.string(notification.databaseScope.rawValue)
        writer.signed(notification.created)
        switch notification.reason {
        case .query(let recordName, let firesOn, let zoneID, let fields):
            writer.byte(1)
            writer.string(recordName)
            writer.string(firesOn.rawValue)
            writer.string(zoneID.zoneName)
            writer.string(zoneID.ownerRecordName)
            writer.blob(RecordPayloadCodec.encode(fields))
        case .zone(let zoneID):
            writer.byte(2)
            writer.string(zoneID.zoneName)
            writer.string(zoneID.ownerRecordName)
        case .database:
            writer.byte(3)
        }
        encode(notification.notificationInfo, into: &writer)
        return writer.bytes
    }

    static func decodeNotification(_ bytes: [UInt8]) throws -> QueuedNotification {
        var reader = BinaryReader(bytes: bytes, damaged: damaged)
        guard try reader.byte() == format else { throw damaged }
        let id = try reader.string()
        let subscriptionID = try reader.string()
        let container = try ContainerIdentifier(try reader.string())
        guard let environment = Environment(rawValue: try reader.string()) else { throw damaged }
        let user = try reader.string()
        guard let scope = DatabaseScope(rawValue: try reader.string()) else { throw damaged }
        let created = try reader.signed()
        let reason: QueuedNotification.Reason
        switch try reader.byte() {
        case 1:
            let recordName = try reader.string()
            guard let firesOn = Subscription.FiresOn(rawValue: try reader.string()) else { throw damaged }
            let zoneID = ZoneID(zoneName: try reader.string(), ownerRecordName: try reader.string())
            reason = .query(
                recordName: recordName, firesOn: firesOn, zoneID: zoneID, fields: try RecordPayloadCodec.decode(try reader.blob()))
        case 2:
            reason = .zone(ZoneID(zoneName: try reader.string(), ownerRecordName: try reader.string()))
        case 3:
            reason = .database
        default:
            throw damaged
        }
        return QueuedNotification(
            notificationID: id, subscriptionID: subscriptionID, container: container, environment: environment, userRecordName: user,
            databaseScope: scope, reason: reason, notificationInfo: try decodeInfo(&reader), created: created)
    }
}
