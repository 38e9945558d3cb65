import CloudKitWire
import CloudStore
import Foundation

extension ManagementActions {
    /// Everything `user` created or owns in the container (both environments, or `environment`)
    /// as one tar archive written to a file of a private folder: JSON lines per database and zone,
    /// and the assets' files. The caller sends the file and removes its folder. Audited.
    public func exportUser(_ user: String, in container: ContainerIdentifier, environment: String?, as actor: OperatorIdentity) throws
        -> UserExportFile
    {
        let (identifier, found) = try existingUser(user, in: container)
        let environments = try Self.environments(environment)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-export-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let path = folder + "/" + Self.exportFileName(found)
        do {
            let summary = try store.exportUser(
                found.userRecordName, in: identifier, environments: environments, to: path, encoder: WireUserExportEncoder(), by: actor)
            return UserExportFile(path: path, summary: summary)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// Erases `user` from the container (both environments and their account, or `environment`),
    /// or with `dryRun` only counts what would go; public records of the types `reassign` names go
    /// to the user it names (sign-in name or user record name) instead. Audited.
    public func eraseUser(
        _ user: String, in container: ContainerIdentifier, environment: String?, reassign: [String: String] = [:], dryRun: Bool,
        as actor: OperatorIdentity
    ) throws -> UserErasureView {
        let (identifier, found) = try existingUser(user, in: container)
        let targets = try reassign.mapValues { try existingUser($0, in: container).1.userRecordName }
        return UserErasureView(
            try store.eraseUser(
                found.userRecordName, in: identifier, environments: try Self.environments(environment), reassigning: targets,
                dryRun: dryRun,
                by: actor))
    }

    /// The environments a request names: one, or both when it names none.
    static func environments(_ text: String?) throws -> [Environment] {
        guard let text, !text.isEmpty, text != "all" else { return [] }
        return [try Environment(parsing: text)]
    }

    /// `alice-export.tar`, from the user's sign-in name kept to safe characters.
    static func exportFileName(_ user: AppUser) -> String {
        let safe = user.name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "_" }
        return String(safe.prefix(60)) + "-export.tar"
    }
}

/// Records and subscriptions as CloudKit's JSON gives them, one per line.
struct WireUserExportEncoder: UserExportEncoder {
    func line(_ record: Record) -> [UInt8] { RecordEncoder(numbersAsStrings: false).json(record).serialized() }

    func line(_ subscription: Subscription, in database: DatabaseID) -> [UInt8] {
        var object = SubscriptionWire.json(subscription, owner: database.owner).objectValue ?? [:]
        object["database"] = .string(database.scope.rawValue)
        return JSONValue.object(object).serialized()
    }

    func profile(_ user: AppUser) -> [UInt8] {
        let object: JSONObject = [
            "userRecordName": .string(user.userRecordName), "container": .string(user.container.rawValue), "name": .string(user.name),
            "emailAddress": ManagementActions.optional(user.emailAddress), "firstName": ManagementActions.optional(user.firstName),
            "lastName": ManagementActions.optional(user.lastName), "created": .integer(user.created),
            "discoverable": .bool(user.isDiscoverable),
        ]
        return JSONValue.object(object).serialized()
    }
}
