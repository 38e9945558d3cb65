/// The outcome of one record operation or lookup.
public enum RecordResult: Hashable, Sendable {
    /// The record as saved or found (trimmed to the desired keys).
    case record(Record)
    /// The record was saved, but the caller may not read it (WRITE does not give READ): they
    /// learn its name and new change tag, nothing that a lookup would withhold from them.
    case withheld(recordName: String, changeTag: String, zoneID: ZoneID)
    /// The record was deleted.
    case deleted(recordName: String, zoneID: ZoneID)
    /// The operation failed for this record.
    case failure(recordName: String?, error: CloudStoreError)

    /// The record, when there is one.
    public var record: Record? {
        if case .record(let record) = self { return record }
        return nil
    }

    /// The error, when the operation failed.
    public var error: CloudStoreError? {
        if case .failure(_, let error) = self { return error }
        return nil
    }
}
