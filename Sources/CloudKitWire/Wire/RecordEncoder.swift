import CloudStore
import Foundation

/// Writes records and per-record results as CloudKit's Record Dictionary and Record Fetch Error
/// Dictionary.
public struct RecordEncoder {
    public var fields: FieldValueEncoder
    /// The signed-in user the records go to: a share says which participant they are.
    public var currentUser: String?
    /// The last zone ID written: a page of records is nearly always of one zone.
    private let lastZone = LastZone()

    private final class LastZone {
        var zoneID: ZoneID?
        var json: JSONValue = .null
    }

    public init(numbersAsStrings: Bool, currentUser: String? = nil) {
        fields = FieldValueEncoder(numbersAsStrings: numbersAsStrings)
        self.currentUser = currentUser
    }

    private func zoneJSON(_ zoneID: ZoneID) -> JSONValue {
        if lastZone.zoneID != zoneID {
            lastZone.zoneID = zoneID
            lastZone.json = ZoneWire.json(zoneID)
        }
        return lastZone.json
    }

    /// A Record Dictionary. `withFields: false` leaves `fields` out, as CloudKit does for `desiredKeys: []`.
    public func json(_ record: Record, withFields: Bool = true) -> JSONValue {
        // Built as parallel arrays of keys known to be unique: a page of records is mostly this.
        var keys = ["recordName", "recordType", "recordChangeTag"]
        var values: [JSONValue] = [.string(record.recordName), .string(record.recordType), .string(record.changeTag)]
        keys.reserveCapacity(9)
        values.reserveCapacity(9)
        if withFields {
            let sorted = record.fields.sorted { $0.key < $1.key }
            keys.append("fields")
            values.append(.object(JSONObject(uniqueKeys: sorted.map(\.key), values: sorted.map { fields.encode($0.value) })))
        }
        keys += ["created", "modified", "zoneID"]
        values += [stamp(record.created), stamp(record.modified), zoneJSON(record.zoneID)]
        if let parent = record.parent {
            keys.append("parent")
            values.append(.object(JSONObject(uniqueKeys: ["recordName"], values: [.string(parent)])))
        }
        if let share = record.share {
            keys.append("share")
            values.append(.object(JSONObject(uniqueKeys: ["recordName", "zoneID"], values: [.string(share), zoneJSON(record.zoneID)])))
        }
        if let sharing = record.sharing {
            keys += ["shortGUID", "publicPermission", "participants", "owner"]
            values += [
                .string(sharing.shortGUID), .string(sharing.publicPermission.rawValue),
                .array(sharing.allParticipants.map(ShareWire.json)), ShareWire.json(sharing.ownerParticipant),
            ]
            if let user = currentUser, let participant = sharing.participant(user) {
                keys.append("currentUserParticipant")
                values.append(ShareWire.json(participant))
            }
        }
        keys.append("pluginFields")
        values.append(.object(JSONObject()))
        return .object(JSONObject(uniqueKeys: keys, values: values))
    }

    private func stamp(_ stamp: RecordStamp) -> JSONValue {
        .object(JSONObject(
            uniqueKeys: ["timestamp", "userRecordName", "deviceID"],
            values: [
                fields.numbersAsStrings ? .string(String(stamp.timestamp)) : .integer(stamp.timestamp), .string(stamp.userRecordName),
                .string(stamp.deviceID),
            ]))
    }

    /// One entry of a `records` array in a response.
    public func json(_ result: RecordResult, desiredKeys: [String]?) -> JSONValue {
        switch result {
        case .record(let record):
            return json(record, withFields: desiredKeys.map { !$0.isEmpty } ?? true)
        case .deleted(let name, let zoneID):
            return .object(["recordName": .string(name), "deleted": .bool(true), "zoneID": zoneJSON(zoneID)])
        case .failure(let name, let error):
            return self.error(CloudKitError(error), recordName: name)
        }
    }

    /// A Record Fetch Error Dictionary; a conflict carries the server's record.
    public func error(_ error: CloudKitError, recordName: String?) -> JSONValue {
        var object = JSONObject()
        if let recordName { object["recordName"] = .string(recordName) }
        object["reason"] = .string(error.reason)
        object["serverErrorCode"] = .string(error.serverErrorCode)
        if let retryAfter = error.retryAfter { object["retryAfter"] = .integer(Int64(retryAfter)) }
        if let url = error.redirectURL { object["redirectURL"] = .string(url) }
        if let record = error.serverRecord { object["serverRecord"] = json(record) }
        return .object(object)
    }
}
