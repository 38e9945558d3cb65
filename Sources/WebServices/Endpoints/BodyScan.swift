import CloudKitWire

/// The endpoints whose bodies may be read straight from their bytes, without a JSON tree, and
/// what such a reading gives (see ``ScannedModifyBody``): only bodies the tree reads alike are
/// scanned, so every error still comes from the tree.
enum BodyScan: Sendable {
    /// `records/modify`.
    case modify
    /// `records/lookup`.
    case lookup
    /// `records/query`.
    case query

    /// A body read by a scan.
    enum Scanned: Sendable {
        case modify(ScannedModifyBody)
        case lookup(ScannedLookupBody)
        case query(ScannedQueryBody)

        /// The body's members around its operations or lookups.
        var envelope: JSONValue {
            switch self {
            case .modify(let body): body.envelope
            case .lookup(let body): body.envelope
            case .query(let body): body.envelope
            }
        }
    }

    /// `bytes` read, or `nil` when they are not of the shape this scan reads.
    func scan(_ bytes: [UInt8]) -> Scanned? {
        switch self {
        case .modify: ScannedModifyBody.scan(bytes).map { .modify($0) }
        case .lookup: ScannedLookupBody.scan(bytes).map { .lookup($0) }
        case .query: ScannedQueryBody.scan(bytes).map { .query($0) }
        }
    }
}
