import Crypto

/// Where a query page stopped, as the opaque `continuationMarker` a client passes back: the last
/// row's sort values and key, bound to the query it came from and to the environment's
/// incarnation, and sealed by the server.
struct ContinuationMarker: Hashable, Sendable {
    /// Identifies the query (type, filters, sorts, zones), so a marker cannot resume another query.
    var fingerprint: [UInt8]
    /// The environment's incarnation when the page was read: a marker from before a reset or a
    /// restore would resume among records that are no longer the ones paged through.
    var incarnation: String
    /// Where to resume.
    var position: QueryPlan.Position

    /// Format 2 carries the incarnation; format 1, from before, is still read.
    private static let format: UInt8 = 2

    /// The fingerprint of a plan: what must not change between pages.
    static func fingerprint(of plan: QueryPlan) -> [UInt8] {
        let description = String(
            describing: (plan.recordType, plan.filters, plan.sorts, plan.zones.map(\.key), plan.createdBy, plan.withinTrees))
        return Array(SHA256.hash(data: Array(description.utf8))).prefix(8).map { $0 }
    }

    /// The sealed string form.
    func encoded(with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Self.format)
        writer.string(incarnation)
        writer.blob(fingerprint)
        writer.varint(UInt64(position.sortValues.count))
        for value in position.sortValues {
            switch value {
            case .null: writer.byte(0)
            case .integer(let integer): writer.byte(1); writer.signed(integer)
            case .real(let real): writer.byte(2); writer.double(real)
            case .text(let text): writer.byte(3); writer.string(text)
            }
        }
        writer.signed(position.key)
        return signer.seal(writer.bytes)
    }

    /// Opens a marker and checks it belongs to `plan` in the environment's `incarnation` (read
    /// through `incarnation` only when the marker carries one).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is malformed, forged, from another
    ///   query, or from before the environment was reset or restored.
    static func decode(
        _ text: String, for plan: QueryPlan, incarnation: () throws -> String, with signer: OpaqueTokenSigner
    ) throws -> QueryPlan.Position {
        let invalid = CloudStoreError.badRequest("The continuation marker is not valid")
        guard let payload = signer.open(text) else { throw invalid }
        var reader = BinaryReader(bytes: payload, damaged: invalid)
        let version = try reader.byte()
        guard version == 1 || version == format else { throw invalid }
        if version == format, try reader.string() != incarnation() {
            throw CloudStoreError.badRequest(
                "The continuation marker is from before this environment was reset or restored; run the query again from the start")
        }
        guard try reader.blob() == fingerprint(of: plan) else {
            throw CloudStoreError.badRequest("The continuation marker belongs to a different query")
        }
        let count = try reader.count()
        var values: [SortKeyValue] = []
        for _ in 0..<count {
            switch try reader.byte() {
            case 0: values.append(.null)
            case 1: values.append(.integer(try reader.signed()))
            case 2: values.append(.real(try reader.double()))
            case 3: values.append(.text(try reader.string()))
            default: throw invalid
            }
        }
        let key = try reader.signed()
        guard reader.isAtEnd else { throw invalid }
        return QueryPlan.Position(sortValues: values, key: key)
    }
}
