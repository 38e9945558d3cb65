/// Who changed a record, when, and from which device: the `created` and `modified` system fields.
public struct RecordStamp: Hashable, Sendable {
    /// Milliseconds since 1970-01-01 UTC.
    public var timestamp: Int64
    /// The record name of the user who made the change.
    public var userRecordName: String
    /// The device the change came from.
    public var deviceID: String

    /// Creates a stamp.
    public init(timestamp: Int64, userRecordName: String, deviceID: String) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}
