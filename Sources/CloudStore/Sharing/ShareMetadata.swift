/// One short GUID of a `records/resolve` or `records/accept` request.
public struct ShareLookup: Hashable, Sendable {
    /// The short GUID.
    public var shortGUID: String
    /// Whether the answer carries the shared hierarchy's root record.
    public var fetchRootRecord: Bool
    /// The root record's fields to return; `nil` returns all.
    public var rootRecordDesiredKeys: [String]?

    /// Creates a lookup.
    public init(shortGUID: String, fetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil) {
        self.shortGUID = shortGUID
        self.fetchRootRecord = fetchRootRecord
        self.rootRecordDesiredKeys = rootRecordDesiredKeys
    }
}

/// What a share is to the user who resolved or accepted it.
public struct ShareMetadata: Hashable, Sendable {
    /// The share's container.
    public var container: ContainerIdentifier
    /// The share's environment.
    public var environment: Environment
    /// The share, with its participants.
    public var share: Share
    /// Where the caller finds what it covers: their private database (the owner) or their
    /// shared database.
    public var databaseScope: DatabaseScope
    /// The share's owner; `nil` if the owner's account is gone.
    public var owner: AppUser?
    /// The caller's place in the share.
    public var participant: ShareParticipant
    /// The shared hierarchy's root, when asked for and the caller may read it.
    public var rootRecord: Record?
}

/// One short GUID's outcome in `records/resolve` or `records/accept`.
public enum ShareResolution: Hashable, Sendable {
    /// The share, as the caller sees it.
    case resolved(ShareMetadata)
    /// Why the short GUID could not be resolved or accepted.
    case failure(shortGUID: String, error: CloudStoreError)
}
