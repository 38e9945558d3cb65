import ArgumentParser
import CloudKitWire
import CloudStore
import Console

/// Where a history command looks: a zone and a record type of the database, each optional.
struct HistoryScopeOptions: ParsableArguments {
    @Option(help: "Only this zone.")
    var zone: String?

    @Option(help: "Only records of this type.")
    var type: String?
}

/// The record a history command is about: its zone and name.
struct RecordOptions: ParsableArguments {
    @Option(help: "The record's zone.")
    var zone = ZoneID.defaultZoneName

    @Option(name: .customLong("record"), help: "The record's name.")
    var name: String
}

/// `cumulus trash list|restore`: a database's deleted records and zones, and bringing them back.
struct TrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash", abstract: "List and restore the deleted records and zones of a database.",
        subcommands: [List.self, Restore.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List deleted records (at their last version) and zones, as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var scope: HistoryScopeOptions

        @Option(help: "The most records listed in a page, most recently deleted first.")
        var limit = 1000

        @Option(help: "Start after this point: the `next` of the page before.")
        var after: String?

        @Flag(help: "Follow every page: the records of all of them, in one answer.")
        var all = false

        func run() throws {
            let client = try management.client()
            func page(after: String?) throws -> JSONValue {
                try client.json(
                    .get,
                    database.path(
                        target, ["trash"],
                        query: [("zone", scope.zone), ("type", scope.type), ("limit", String(limit)), ("after", after)]))
            }
            var answer = try page(after: after)
            // Every page's records in one answer, its zones the first page's.
            while all, case .object(var object) = answer, case .string(let next)? = object["next"] {
                let more = try page(after: next)
                guard case .array(let records)? = object["records"], case .object(let following) = more,
                    case .array(let further)? = following["records"]
                else { break }
                object["records"] = .array(records + further)
                object["next"] = following["next"] ?? .null
                answer = .object(object)
            }
            printJSON(answer)
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Restore deleted records (and their zones) as new changes: those named, those deleted since a time, or all in the scope.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var scope: HistoryScopeOptions

        @Option(name: .customLong("record"), help: "A record to restore (repeat for several).")
        var records: [String] = []

        @Option(help: "Only records deleted at or after this time (ISO 8601, UTC unless it says otherwise, or milliseconds since 1970).")
        var since: String?

        func run() throws {
            var body: [(String, JSONValue)] = []
            if let zone = scope.zone { body.append(("zone", .string(zone))) }
            if let type = scope.type { body.append(("type", .string(type))) }
            if !records.isEmpty { body.append(("records", .array(records.map(JSONValue.string)))) }
            if let since { body.append(("since", .string(since))) }
            printJSON(try management.client().json(.post, database.path(target, ["trash", "restore"]), body: .object(JSONObject(body))))
        }
    }
}

/// `cumulus history`: a record's kept versions, reverting to one, and how long they are kept.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "A record's kept versions with who changed what; revert to one; the history's retention.",
        subcommands: [Show.self, Revert.self, Retention.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a record's kept versions, newest first, as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var record: RecordOptions

        func run() throws {
            printJSON(
                try management.client().json(
                    .get, database.path(target, ["history"], query: [("zone", record.zone), ("record", record.name)])))
        }
    }

    struct Revert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a kept version of a record back as a normal save, refused if the record changed since (its change tag).")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var record: RecordOptions

        @Option(help: "The version to write back (from `cumulus history`).")
        var version: Int64

        @Option(help: "The record's current change tag: the save is refused if the record changed since. The current one by default.")
        var changeTag: String?

        func run() throws {
            var body: [(String, JSONValue)] = [
                ("zone", .string(record.zone)), ("record", .string(record.name)), ("version", .integer(version)),
            ]
            if let changeTag { body.append(("recordChangeTag", .string(changeTag))) }
            printJSON(try management.client().json(.post, database.path(target, ["history", "revert"]), body: .object(JSONObject(body))))
        }
    }

    struct Retention: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set how long an environment keeps replaced versions and deleted records and zones.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "The environment's own retention, such as 90d or 36h (1h to 3650d).")
        var set: String?

        @Flag(help: "Return the environment to the server's default (--history-retention).")
        var serverDefault = false

        func run() throws {
            let path = target.path(["history-retention"])
            guard set != nil || serverDefault else {
                printJSON(try management.client().json(.get, path))
                return
            }
            var seconds = JSONValue.null
            if let set {
                guard let duration = SettingReader.parseDuration(set) else {
                    throw ValidationError("--set takes a duration such as 90d or 36h")
                }
                seconds = .integer(duration.components.seconds)
            }
            printJSON(try management.client().json(.put, path, body: ["seconds": seconds]))
        }
    }
}

/// `cumulus restore-point`: a zone or record type brought back to its state at a time, or to
/// what one of the server's backups holds of it.
struct RestorePointCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore-point",
        abstract:
            "Bring a zone or a record type back to its state at a time, or to what a backup holds of it: the changes are new changes.",
        discussion: """
            With --at, creates, updates and deletes since that time are undone. With --backup (a name `cumulus backups list` \
            gives), the zone or type becomes what the backup holds: records it holds are written back, records it lacks are \
            deleted, on the running server (owners of every container only, as for backups).
            """
    )

    @OptionGroup var management: ManagementOptions
    @OptionGroup var target: ContainerOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var scope: HistoryScopeOptions

    @Option(help: "The time to go back to (ISO 8601, UTC unless it says otherwise, or milliseconds since 1970).")
    var at: String?

    @Option(help: "The server's backup to restore from, instead of a time.")
    var backup: String?

    @OptionGroup var location: BackupsCommand.Location

    @Flag(help: "Only count what would change, with a sample of the records.")
    var dryRun = false

    func validate() throws {
        guard scope.zone != nil || scope.type != nil else { throw ValidationError("Name a --zone or a --type") }
        guard (at == nil) != (backup == nil) else { throw ValidationError("Give either --at TIME or --backup NAME") }
    }

    func run() throws {
        var body: [(String, JSONValue)] = [("dryRun", .bool(dryRun))]
        if let at { body.append(("at", .string(at))) }
        if let backup { body.append(("backup", .string(backup))) }
        if let zone = scope.zone { body.append(("zone", .string(zone))) }
        if let type = scope.type { body.append(("type", .string(type))) }
        let client = backup == nil ? try management.client() : try location.client(management)
        let route = backup == nil ? "restore-point" : "restore-from-backup"
        printJSON(try client.json(.post, database.path(target, [route]), body: .object(JSONObject(body))))
    }
}
