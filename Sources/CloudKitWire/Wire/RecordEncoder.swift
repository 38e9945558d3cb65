import CloudStore
import Foundation

/// Writes records and per-record results as CloudKit's Record Dictionary and Record Fetch Error
/// Dictionary.
public struct RecordEncoder {
    public var fields: FieldValueEncoder

    public init(numbersAsStrings: Bool) {
        fields = FieldValueEncoder(numbersAsStrings: numbersAsStrings)
    }

    /// A Record Dictionary. `withFields: false` leaves `fields` out, as CloudKit does for `desiredKeys: []`.
    public func json(_ record: Record, withFields: Bool = true) -> JSONValue {
        var object: JSONObject = [
            "recordName": .string(record.recordName),
            "recordType": .string(record.recordType),
            "recordChangeTag": .string(record.changeTag),
        ]
        if withFields {
            var values = JSONObject()
            for name in record.fields.keys.sorted() { values[name] = fields.encode(record.fields[name]!) }
            object["fields"] = .object(values)
        }
        object["created"] = stamp(record.created)
        object["modified"] = stamp(record.modified)
        object["zoneID"] = ZoneWire.json(record.zoneID)
        if let parent = record.parent { object["parent"] = .object(["recordName": .string(parent)]) }
        object["pluginFields"] = .object([:])
        return .object(object)
    }

    private func stamp(_ stamp: RecordStamp) -> JSONValue {
        .object([
            "timestamp": fields.numbersAsStrings ? .string(String(stamp.timestamp)) : .integer(stamp.timestamp),
            "userRecordName": .string(stamp.userRecordName), "deviceID": .string(stamp.deviceID),
        ])
    }

    /// One entry of a `records` array in a response.
    public func json(_ result: RecordResult, desiredKeys: [String]?) -> JSONValue {
        switch result {
        case .record(let record):
            return json(record, withFields: desiredKeys.map { !$0.isEmpty } ?? true)
        case .deleted(let name, let zoneID):
            return .object(["recordName": .string(name), "deleted": .bool(true), "zoneID": ZoneWire.json(zoneID)])
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
