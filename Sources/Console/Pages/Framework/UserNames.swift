import CloudStore

/// The app users of a container by user record name, read once for a page, so that the page
/// names a user the way people know them: "alice (`_2e59…`)", the name first and the record
/// name second, shortened. A record name no user has (the operator, a removed user) stays as it is.
struct UserNames {
    private let names: [String: String]

    /// The names of `container`'s users, in one read (not the Users page's view, which also
    /// counts each user's roles and sessions); none when they cannot be read, so that the page
    /// still shows the record names.
    init(_ container: ContainerIdentifier?, _ actions: ManagementActions) {
        names = container.flatMap { try? actions.userNames($0) } ?? [:]
    }

    /// Names given directly: user record name to sign-in name.
    init(_ names: [String: String]) { self.names = names }

    /// The sign-in name of `recordName`, when a user has it.
    func name(of recordName: String) -> String? { names[recordName] }

    /// `alice (_2e59…)`, or the record name alone when no user has it: for plain text
    /// (confirmation titles, notices).
    func label(_ recordName: String) -> String {
        guard let name = names[recordName] else { return recordName }
        return "\(name) (\(Self.short(recordName)))"
    }

    /// The values of the `console.user` partial: `name` (or the record name), `short` (the
    /// shortened record name, empty when there is no name) and `recordName` in full, for its title.
    func context(_ recordName: String?) -> [String: Any] {
        guard let recordName, !recordName.isEmpty else { return ["name": "—", "short": "", "recordName": "", "hasName": false] }
        guard let name = names[recordName] else { return ["name": recordName, "short": "", "recordName": recordName, "hasName": false] }
        return ["name": name, "short": Self.short(recordName), "recordName": recordName, "hasName": true]
    }

    /// A user record name shortened to its first characters: `_2e59…`.
    static func short(_ recordName: String) -> String {
        recordName.count > 8 ? String(recordName.prefix(5)) + "…" : recordName
    }
}
