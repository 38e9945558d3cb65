/// The record history both backends keep alike (`record_history`, `zone_trash`): the columns a
/// kept version is read from, its decoder, and the statements whose text is the same on both
/// but for how parameters are written.
enum HistoryRows {
    // MARK: - Counted in storage

    /// The `zone_stats` row a zone's kept versions are counted in: its key negated. The history's
    /// bytes are kept with the records' in `zone_stats`, so that the storage total and the
    /// quota check read both in the one sum they make, written by the counts every write
    /// flushes; rows of no zone (zero or below) are never listed as a zone's (the zones' figures
    /// join `zones`). Counted per zone rather than in one row, so writers of different zones do
    /// not wait on one another's counts.
    static func statsZone(of zone: StoredZone) -> Int64 { -zone.key }

    /// The `zone_stats` row the bytes of versions forgotten at their retention's end are taken
    /// from: what was kept and what was forgotten sum to what the history holds.
    static let forgottenStatsZone: Int64 = 0

    /// The condition on `zone_stats` (unqualified) of the rows that count the history.
    static let statsCondition = "zone <= 0"

    /// The columns of `record_history` a kept version is read from, in order.
    static let selected =
        "h.id, h.scope, h.owner, h.zone_name, h.name, h.type_name, h.tag, h.parent, h.created, h.created_by, h.created_device, "
        + "h.modified, h.modified_by, h.modified_device, h.size, h.payload, h.kind, h.time, h.replaced_by, h.replaced_via"

    /// The columns of `record_history` written when a version is kept, in the order of
    /// ``copiedColumns``.
    static let keptColumns =
        "scope, owner, zone_name, name, type_name, tag, parent, created, created_by, created_device, modified, modified_by, "
        + "modified_device, size, payload, kind, time, replaced_by, replaced_via"

    /// What ``keptColumns`` are copied from: the stored record's row `r` of `records` and its
    /// type's name (`typeName`, a column or a parameter), with the zone and the replacement as
    /// parameters `p(1)`…`p(7)` (scope, owner, zone name, kind, time, modifier, via).
    static func copiedColumns(typeName: String, _ p: (Int) -> String) -> String {
        "\(p(1)), \(p(2)), \(p(3)), r.name, \(typeName), r.tag, r.parent, r.created, r.created_by, r.created_device, r.modified, "
            + "r.modified_by, r.modified_device, r.size, r.payload, \(p(4)), \(p(5)), \(p(6)), \(p(7))"
    }

    /// The parameters of ``copiedColumns(_:)`` for a version of `zone`'s record replaced by `replacement`.
    static func copiedParameters(_ zone: StoredZone, _ replacement: VersionReplacement) -> [HistoryValue] {
        [
            .integer(StoredCodes.scopeCode(zone.database.scope)), .text(zone.database.owner), .text(zone.zoneID.zoneName),
            .integer(replacement.kind.rawValue), .integer(replacement.time), .text(replacement.modifier), .text(replacement.via),
        ]
    }

    /// A parameter of a history statement, which each backend turns into its own value.
    enum HistoryValue: Hashable {
        case integer(Int64)
        case text(String?)
        case texts([String])
    }

    /// The condition (after `WHERE`) and parameters of a read of versions `filter` keeps from
    /// `table`, the parameters numbered from `first` by `p`; `nameIn` writes "the name is one of
    /// these `count` names" for the parameter that holds them.
    static func condition(
        of filter: VersionFilter, table: String, first: Int, _ p: (Int) -> String, nameIn: (String, Int) -> String
    ) -> (String, [HistoryValue]) {
        var conditions: [String] = []
        var values: [HistoryValue] = []
        func add(_ value: HistoryValue, _ condition: (String) -> String) {
            values.append(value)
            conditions.append(condition(p(first + values.count - 1)))
        }
        if let database = filter.database {
            add(.integer(StoredCodes.scopeCode(database.scope))) { "h.scope = \($0)" }
            add(.text(database.owner)) { "h.owner = \($0)" }
        }
        if let zoneName = filter.zoneName { add(.text(zoneName)) { "h.zone_name = \($0)" } }
        if let recordType = filter.recordType { add(.text(recordType)) { "h.type_name = \($0)" } }
        if let since = filter.since { add(.integer(since)) { "h.time >= \($0)" } }
        if let beforeID = filter.beforeID { add(.integer(beforeID)) { "h.id < \($0)" } }
        if let names = filter.recordNames {
            if names.isEmpty { conditions.append("0 = 1") } else { add(.texts(names)) { nameIn($0, names.count) } }
        }
        if filter.replacements.count < RecordVersion.Replacement.allCases.count {
            let kinds = filter.replacements.map { String($0.rawValue) }.sorted().joined(separator: ", ")
            conditions.append(kinds.isEmpty ? "0 = 1" : "h.kind IN (\(kinds))")
        }
        if filter.newestOfEachRecord {
            conditions.append(
                "h.id = (SELECT max(n.id) FROM \(table) n WHERE n.scope = h.scope AND n.owner = h.owner "
                    + "AND n.zone_name = h.zone_name AND n.name = h.name)")
        }
        return (conditions.isEmpty ? "1 = 1" : conditions.joined(separator: " AND "), values)
    }

    /// Decodes a kept version from `row`, read with ``selected`` from column `offset`.
    static func version(from row: some StoredRow, offset: Int32 = 0) throws -> RecordVersion {
        let scope = StoredCodes.scope(ofCode: row.integer(offset + 1))
        let owner = row.text(offset + 2)
        let database = scope == .public ? DatabaseID.public : DatabaseID(scope: scope, owner: owner)
        let record = Record(
            recordName: row.text(offset + 4), recordType: row.text(offset + 5),
            zoneID: ZoneID(zoneName: row.text(offset + 3), ownerRecordName: owner),
            fields: try RecordPayloadCodec.decode(row.blob(offset + 15)),
            parent: row.optionalText(offset + 7), changeTag: row.text(offset + 6),
            created: RecordStamp(timestamp: row.integer(offset + 8), userRecordName: row.text(offset + 9), deviceID: row.text(offset + 10)),
            modified: RecordStamp(
                timestamp: row.integer(offset + 11), userRecordName: row.text(offset + 12), deviceID: row.text(offset + 13)))
        return RecordVersion(
            id: row.integer(offset), database: database, record: record, size: Int(row.integer(offset + 14)),
            replacement: RecordVersion.Replacement(rawValue: row.integer(offset + 16)) ?? .updated, time: row.integer(offset + 17),
            modifier: row.optionalText(offset + 18), via: Self.credential(row.optionalText(offset + 19)))
    }

    /// The columns of `zone_trash` a trashed zone is read from, in order.
    static let zoneSelected = "z.scope, z.owner, z.name, z.created, z.time, z.replaced_by, z.replaced_via, z.records"

    /// Decodes a trashed zone from `row`, read with ``zoneSelected``.
    static func trashedZone(from row: some StoredRow) -> TrashedZone {
        let scope = StoredCodes.scope(ofCode: row.integer(0))
        let owner = row.text(1)
        return TrashedZone(
            database: scope == .public ? DatabaseID.public : DatabaseID(scope: scope, owner: owner), zoneName: row.text(2),
            created: row.integer(3), deleted: row.integer(4), modifier: row.optionalText(5), via: Self.credential(row.optionalText(6)),
            records: Int(row.integer(7)))
    }

    /// The credential a change came through, in words (`API token iOS app`), from how the
    /// columns keep it; a value of another form as it is.
    static func credential(_ packed: String?) -> String? {
        packed.map { RequestLogCredential(packed: $0)?.description ?? $0 }
    }
}
