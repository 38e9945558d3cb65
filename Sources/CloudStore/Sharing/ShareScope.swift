/// What one user reaches through shares in one zone of another user's private database: the
/// whole zone, or hierarchies by their root, each with a permission.
struct ShareScope: Sendable {
    /// The permission a share of the whole zone gives.
    var wholeZone: SharePermission = .none
    /// The permission each shared hierarchy gives, by its root's record name.
    var trees: [String: SharePermission] = [:]

    /// The scope `user` has through `shares`, the shares of one zone.
    init(shares: [Share], user: String) {
        for share in shares {
            let permission = share.permission(of: user)
            guard permission != .none else { continue }
            if let root = share.rootRecordName {
                trees[root] = max(trees[root] ?? .none, permission)
            } else {
                wholeZone = max(wholeZone, permission)
            }
        }
    }

    /// Whether the user reaches nothing in the zone.
    var isEmpty: Bool { wholeZone == .none && trees.isEmpty }

    /// The roots of every shared hierarchy of the zone, whoever they are shared with.
    static func roots(of shares: [Share]) -> Set<String> { Set(shares.compactMap(\.rootRecordName)) }

    /// The deepest that `root(of:)` follows parents: a hierarchy deeper than this is not
    /// followed further, so a parent cycle cannot hold a request.
    static let maximumDepth = 256

    /// The root of the shared hierarchy `recordName` is in: itself or its nearest ancestor whose
    /// name is in `roots`; `nil` when none is.
    static func root(
        of recordName: String, parent: String?, roots: Set<String>, in zone: StoredZone, reader: any EnvironmentReader
    ) throws -> String? {
        guard !roots.isEmpty else { return nil }
        if roots.contains(recordName) { return recordName }
        var next = parent
        var seen: Set<String> = [recordName]
        while let name = next, seen.count <= maximumDepth, seen.insert(name).inserted {
            if roots.contains(name) { return name }
            next = try reader.record(named: name, in: zone)?.record.parent
        }
        return nil
    }

    /// The permission the scope gives on `recordName` (whose parent is `parent`).
    func permission(
        on recordName: String, parent: String?, in zone: StoredZone, reader: any EnvironmentReader
    ) throws -> SharePermission {
        guard wholeZone != .readWrite, !trees.isEmpty else { return wholeZone }
        let root = try Self.root(of: recordName, parent: parent, roots: Set(trees.keys), in: zone, reader: reader)
        return max(wholeZone, root.flatMap { trees[$0] } ?? .none)
    }
}

extension Share {
    /// The change tag of the `version`th save of a share: never one a record of its zone has.
    static func changeTag(version: Int64) -> String { "s" + String(version, radix: 36) }

    /// The save count a share's change tag holds.
    static func version(ofTag tag: String) -> Int64 { Int64(tag.dropFirst(), radix: 36) ?? 0 }
}
