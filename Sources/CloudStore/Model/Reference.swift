/// A field value pointing at another record.
public struct Reference: Hashable, Sendable {
    /// What happens to, or is required of, the referencing record.
    public enum Action: String, Hashable, Sendable, CaseIterable {
        /// No constraint.
        case none = "NONE"
        /// Deleting the target deletes the record holding the reference.
        case deleteSelf = "DELETE_SELF"
        /// The target must exist when the reference is saved.
        case validate = "VALIDATE"
    }

    /// The target's record name.
    public var recordName: String
    /// The target's zone; `nil` means the zone of the record holding the reference.
    public var zoneID: ZoneID?
    /// The reference's action.
    public var action: Action

    /// Creates a reference.
    public init(recordName: String, zoneID: ZoneID? = nil, action: Action = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}
