/// The columns of the `records` table both backends keep alike.
enum RecordColumns {
    /// The columns a stored record is read from, in order, with the zone key last (column 13).
    static let selected =
        "r.rid, r.name, r.type, r.tag, r.parent, r.created, r.created_by, r.created_device, r.modified, r.modified_by, r.modified_device, r.size, r.payload, r.zone"

    /// The column of `records` holding a system field.
    static func column(of system: SystemField) -> String {
        switch system {
        case .recordID: "name"
        case .createTime: "created"
        case .modTime: "modified"
        case .createdBy: "created_by"
        case .modifiedBy: "modified_by"
        case .etag: "tag"
        }
    }
}
