/// Which asset blobs kept versions hold (`history_assets`, by `record_history.id`), alike on both
/// backends: a blob a version in the history or the trash holds is not collected, so that a
/// restore or a revert gives back a record whose asset still downloads. The rows go when
/// retention forgets their versions, and the blobs with the next collection.
enum HistoryAssetRows {
    /// The distinct blobs `fields` hold, in order; for fields without assets (most), found
    /// without making an array.
    static func hashes(of fields: [String: FieldValue]) -> [String] {
        guard fields.values.contains(where: \.holdsAssets) else { return [] }
        return Set(fields.values.flatMap(\.assets).compactMap(\.contentHash)).sorted()
    }

    /// The blobs a stored payload holds: what a migration gives the versions kept before the
    /// table was.
    static func hashes(ofPayload payload: [UInt8]) throws -> [String] {
        hashes(of: try RecordPayloadCodec.decode(payload))
    }

    /// Copies the asset references of a zone's records (`asset_refs`, by record key) to the
    /// versions just kept of them, those after version `p(2)`, matched by name in the zone whose
    /// key is `p(1)`: read from the new versions' ids up, one index lookup each. `table` names a
    /// table as the backend does.
    static func copyZoneReferences(_ table: (String) -> String, _ p: (Int) -> String) -> String {
        """
        INSERT INTO \(table("history_assets"))(id, sha)
        SELECT h.id, a.sha FROM \(table("record_history")) h
        JOIN \(table("records")) r ON r.zone = \(p(1)) AND r.name = h.name
        JOIN \(table("asset_refs")) a ON a.rid = r.rid
        WHERE h.id > \(p(2))
        """
    }

    /// Forgets the references of versions retention forgot: every version before the oldest
    /// kept one, as versions are forgotten oldest first (`table` names a table as the backend does).
    static func forgetReferences(_ table: (String) -> String) -> String {
        """
        DELETE FROM \(table("history_assets"))
        WHERE id < coalesce((SELECT min(id) FROM \(table("record_history"))), 9223372036854775807)
        """
    }
}
