import CloudStore
import Foundation

/// Writes records and per-record results as CloudKit's Record Dictionary and Record Fetch Error
/// Dictionary.
///
/// Records are written straight into JSON text, a page of them into one buffer; the `JSONValue`
/// it hands back holds that text (``JSONValue/serialized(_:)``) and is copied into the response
/// as it is. No tree of values is built for a record on the way out.
public struct RecordEncoder {
    /// Writes the records' fields (and says whether numbers go as strings).
    public var fields: FieldValueEncoder
    /// The signed-in user the records go to: a share says which participant they are.
    public var currentUser: String?
    /// The last zone ID written: a page of records is nearly always of one zone.
    private let lastZone = LastZone()

    private final class LastZone {
        var zoneID: ZoneID?
        var text: [UInt8] = []
    }

    /// An encoder; `numbersAsStrings` as the client asked, `currentUser` the signed-in caller.
    public init(numbersAsStrings: Bool, currentUser: String? = nil) {
        fields = FieldValueEncoder(numbersAsStrings: numbersAsStrings)
        self.currentUser = currentUser
    }

    /// A Record Dictionary. `withFields: false` leaves `fields` out, as CloudKit does for `desiredKeys: []`.
    public func json(_ record: Record, withFields: Bool = true) -> JSONValue {
        text { write(record, withFields: withFields, into: &$0) }
    }

    /// One entry of a `records` array in a response.
    public func json(_ result: RecordResult, desiredKeys: [String]?) -> JSONValue {
        text { write(result, desiredKeys: desiredKeys, into: &$0) }
    }

    /// A `records` array of results, each with the fields its `desiredKeys(position)` leaves in.
    public func array(_ results: [RecordResult], desiredKeys: (Int) -> [String]?) -> JSONValue {
        text(capacity: results.count * 640) {
            $0.writeArray(results.enumerated()) { write($1.element, desiredKeys: desiredKeys($1.offset), into: &$0) }
        }
    }

    /// A whole `{records, continuationMarker?, syncToken?}` answer of records, each with the
    /// fields `desiredKeys` leaves in: written as one text, with no object around it to build.
    public func page(_ records: [Record], desiredKeys: [String]?, continuationMarker: String? = nil, syncToken: String? = nil) -> JSONValue
    {
        let withFields = desiredKeys.map { !$0.isEmpty } ?? true
        return text(capacity: 128 + records.count * 640) { writer in
            writer.append(#"{"records":"#)
            writer.writeArray(records) { write($1, withFields: withFields, into: &$0) }
            writeTail(continuationMarker: continuationMarker, syncToken: syncToken, into: &writer)
        }
    }

    /// A whole `{records, syncToken?}` answer of results, each with the fields its
    /// `desiredKeys(position)` leaves in.
    public func page(_ results: [RecordResult], syncToken: String? = nil, desiredKeys: (Int) -> [String]?) -> JSONValue {
        text(capacity: 128 + results.count * 640) { writer in
            writer.append(#"{"records":"#)
            writer.writeArray(results.enumerated()) { write($1.element, desiredKeys: desiredKeys($1.offset), into: &$0) }
            writeTail(continuationMarker: nil, syncToken: syncToken, into: &writer)
        }
    }

    /// The members of a page after its records, and its closing brace.
    private func writeTail(continuationMarker: String?, syncToken: String?, into writer: inout JSONWriter) {
        if let continuationMarker {
            writer.append(#","continuationMarker":"#)
            writer.write(continuationMarker)
        }
        if let syncToken {
            writer.append(#","syncToken":"#)
            writer.write(syncToken)
        }
        writer.append(UInt8(ascii: "}"))
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

    // MARK: - Writing

    private func text(capacity: Int = 320, _ write: (inout JSONWriter) -> Void) -> JSONValue {
        var writer = JSONWriter(capacity: capacity)
        write(&writer)
        return .serialized(JSONText(writtenBy: writer))
    }

    private func write(_ result: RecordResult, desiredKeys: [String]?, into writer: inout JSONWriter) {
        switch result {
        case .record(let record):
            write(record, withFields: desiredKeys.map { !$0.isEmpty } ?? true, into: &writer)
        case .withheld(let name, let changeTag, let zoneID):
            // A record saved by a caller who may not read it: no type, fields, creator or times.
            writer.append(#"{"recordName":"#)
            writer.write(name)
            writer.append(#","recordChangeTag":"#)
            writer.write(changeTag)
            writer.append(#","zoneID":"#)
            writeZone(zoneID, into: &writer)
            writer.append(UInt8(ascii: "}"))
        case .deleted(let name, let zoneID):
            writer.append(#"{"recordName":"#)
            writer.write(name)
            writer.append(#","deleted":true,"zoneID":"#)
            writeZone(zoneID, into: &writer)
            writer.append(UInt8(ascii: "}"))
        case .failure(let name, let error):
            writer.write(self.error(CloudKitError(error), recordName: name))
        }
    }

    private func write(_ record: Record, withFields: Bool, into writer: inout JSONWriter) {
        writer.append(#"{"recordName":"#)
        writer.write(record.recordName)
        writer.append(#","recordType":"#)
        writer.write(record.recordType)
        writer.append(#","recordChangeTag":"#)
        writer.write(record.changeTag)
        if withFields {
            writer.append(#","fields":{"#)
            record.forEachFieldInNameOrder { position, name, value in
                if position > 0 { writer.append(UInt8(ascii: ",")) }
                writer.write(name)
                writer.append(UInt8(ascii: ":"))
                fields.write(value, into: &writer)
            }
            writer.append(UInt8(ascii: "}"))
        }
        writer.append(#","created":"#)
        writeStamp(record.created, into: &writer)
        writer.append(#","modified":"#)
        writeStamp(record.modified, into: &writer)
        writer.append(#","zoneID":"#)
        writeZone(record.zoneID, into: &writer)
        if let parent = record.parent {
            writer.append(#","parent":{"recordName":"#)
            writer.write(parent)
            writer.append(UInt8(ascii: "}"))
        }
        if let share = record.share {
            writer.append(#","share":{"recordName":"#)
            writer.write(share)
            writer.append(#","zoneID":"#)
            writeZone(record.zoneID, into: &writer)
            writer.append(UInt8(ascii: "}"))
        }
        if let sharing = record.sharing {
            writer.append(#","shortGUID":"#)
            writer.write(sharing.shortGUID)
            writer.append(#","publicPermission":"#)
            writer.write(sharing.publicPermission.rawValue)
            writer.append(#","participants":"#)
            writer.write(.array(sharing.allParticipants.map(ShareWire.json)))
            writer.append(#","owner":"#)
            writer.write(ShareWire.json(sharing.ownerParticipant))
            if let user = currentUser, let participant = sharing.participant(user) {
                writer.append(#","currentUserParticipant":"#)
                writer.write(ShareWire.json(participant))
            }
        }
        writer.append(#","pluginFields":{}}"#)
    }

    private func writeStamp(_ stamp: RecordStamp, into writer: inout JSONWriter) {
        writer.append(#"{"timestamp":"#)
        if fields.numbersAsStrings { writer.write(String(stamp.timestamp)) } else { writer.write(stamp.timestamp) }
        writer.append(#","userRecordName":"#)
        writer.write(stamp.userRecordName)
        writer.append(#","deviceID":"#)
        writer.write(stamp.deviceID)
        writer.append(UInt8(ascii: "}"))
    }

    private func writeZone(_ zoneID: ZoneID, into writer: inout JSONWriter) {
        if lastZone.zoneID != zoneID {
            var zone = JSONWriter(capacity: 96)
            ZoneWire.write(zoneID, into: &zone)
            lastZone.zoneID = zoneID
            lastZone.text = zone.output
        }
        writer.append(bytes: lastZone.text)
    }
}
