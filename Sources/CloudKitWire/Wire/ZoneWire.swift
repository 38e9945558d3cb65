import CloudStore

/// Zone IDs and zones on the wire.
public enum ZoneWire {
    /// A Zone ID Dictionary read from a request: `zoneName` (default `_defaultZone`) and
    /// `ownerRecordName` (MistKit's older `ownerName` too); `zoneType` is ignored.
    /// The owner defaults to `owner`; `nil` when the value is not such a dictionary.
    public static func zoneID(_ json: JSONValue, owner: String?) -> ZoneID? {
        guard let object = json.objectValue else { return nil }
        let name = object["zoneName"]?.nonNull
        guard name == nil || name?.stringValue != nil else { return nil }
        let ownerValue = object["ownerRecordName"]?.nonNull ?? object["ownerName"]?.nonNull
        return ZoneID(
            zoneName: name?.stringValue ?? ZoneID.defaultZoneName,
            ownerRecordName: ownerValue?.stringValue ?? owner ?? DatabaseID.publicOwner)
    }

    /// The zone name a request's `zoneID` names; the default zone when absent.
    public static func zoneName(_ value: WireValue) throws(WireError) -> String {
        guard let json = value.json else { return ZoneID.defaultZoneName }
        guard let zoneID = zoneID(json, owner: nil) else {
            throw WireError("\(value.path) must be a zone ID dictionary with a string zoneName")
        }
        guard !zoneID.zoneName.isEmpty else { throw WireError("\(value.path).zoneName must not be empty") }
        return zoneID.zoneName
    }

    /// The owner a request's `zoneID` names (`ownerRecordName`, or MistKit's older `ownerName`);
    /// `nil` when it names none. In the shared database it says whose zone is meant.
    public static func owner(_ value: WireValue) throws(WireError) -> String? {
        guard let object = value.json?.objectValue else { return nil }
        guard let owner = object["ownerRecordName"]?.nonNull ?? object["ownerName"]?.nonNull else { return nil }
        guard let name = owner.stringValue, !name.isEmpty else {
            throw WireError("\(value.path).ownerRecordName must be a user record name")
        }
        return name
    }

    /// A Zone ID Dictionary as responses carry it, with `zoneType`.
    public static func json(_ zoneID: ZoneID) -> JSONValue {
        var writer = JSONWriter(capacity: 96)
        write(zoneID, into: &writer)
        return .serialized(JSONText(writtenBy: writer))
    }

    /// Writes a Zone ID Dictionary as responses carry it.
    static func write(_ zoneID: ZoneID, into writer: inout JSONWriter) {
        writer.append(#"{"zoneName":"#)
        writer.write(zoneID.zoneName)
        writer.append(#","ownerRecordName":"#)
        writer.write(zoneID.ownerRecordName)
        writer.append(zoneID.isDefaultZone ? #","zoneType":"DEFAULT_ZONE"}"# : #","zoneType":"REGULAR_CUSTOM_ZONE"}"#)
    }

    /// A Zone Fetch Error Dictionary: one zone's failure in its place in a `zones` array.
    public static func error(_ zoneID: ZoneID, _ error: CloudStoreError) -> JSONValue {
        let failure = CloudKitError(error)
        return .object(["zoneID": json(zoneID), "reason": .string(failure.reason), "serverErrorCode": .string(failure.serverErrorCode)])
    }

    /// A Zone Dictionary.
    public static func json(_ zone: Zone) -> JSONValue {
        .object(["zoneID": json(zone.zoneID), "syncToken": .string(zone.syncToken), "atomic": .bool(zone.atomic)])
    }

    /// One zone's outcome in a `zones` array: a Zone Dictionary, `{zoneID, deleted: true}`, or
    /// a Zone Fetch Error Dictionary.
    public static func json(_ result: ZoneResult) -> JSONValue {
        switch result {
        case .zone(let zone):
            return json(zone)
        case .deleted(let zoneID):
            return .object(["zoneID": json(zoneID), "deleted": .bool(true)])
        case .failure(let zoneID, let error):
            return self.error(zoneID, error)
        }
    }
}
