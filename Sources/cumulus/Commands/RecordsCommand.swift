import ArgumentParser
import CloudKitWire
import Console
import Foundation

/// `cumulus records query|lookup|browse|modify|export`: a database's records as the console's
/// Records page reads and writes them, as the operator (any user's private database with `--user`).
struct RecordsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records", abstract: "Query, look up, browse, change and export the records of a database.",
        subcommands: [Query.self, Lookup.self, Browse.self, Modify.self, Export.self, UploadAsset.self])

    /// `--zone` and the path of a records action.
    struct Where: ParsableArguments {
        @OptionGroup var target: ContainerOptions
        @OptionGroup var scope: DatabaseOptions

        @Option(help: "The zone. [default: _defaultZone]")
        var zone: String?

        func path(_ action: String, query extra: [(String, String?)] = []) -> ManagementPath {
            scope.path(target, ["records", action], query: extra)
        }

        /// A body for the zone: `{"zoneID": {"zoneName": …}}` when one was named.
        func body(_ fields: JSONObject) -> JSONValue {
            var body = fields
            if let zone { body["zoneID"] = ["zoneName": .string(zone)] }
            return .object(body)
        }
    }

    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query records of a type, as records/query does; prints the answer as JSON.",
            discussion: "With --file, the whole records/query body is read from the file (- for standard input).")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Option(name: .customLong("record-type"), help: "The record type.")
        var recordType: String?

        @Option(help: "At most this many records.")
        var limit: Int?

        @Option(help: "A records/query body in JSON, or - for standard input.")
        var file: String?

        func validate() throws {
            if (recordType == nil) == (file == nil) { throw ValidationError("Give --record-type or --file") }
        }

        func run() throws {
            var body: JSONObject = [:]
            if let recordType { body["query"] = ["recordType": .string(recordType)] }
            if let limit { body["resultsLimit"] = .integer(Int64(limit)) }
            let request = try file.map { try readJSONObject($0, for: "records query") } ?? location.body(body)
            printJSON(try management.client().json(.post, location.path("query"), body: request))
        }
    }

    struct Lookup: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Look records up by name; prints the answer as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Argument(help: "The records' names.")
        var names: [String]

        func run() throws {
            let records = JSONValue.array(names.map { ["recordName": .string($0)] })
            printJSON(try management.client().json(.post, location.path("lookup"), body: location.body(["records": records])))
        }
    }

    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a zone's records in name order, a page at a time, without a query; prints the page as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Option(name: .customLong("record-type"), help: "Only records of this type.")
        var recordType: String?

        @Option(help: "Start after this record name (the page's `next`).")
        var after: String?

        @Option(help: "At most this many records.")
        var limit: Int?

        func run() throws {
            let path = location.path(
                "browse", query: [("zone", location.zone), ("type", recordType), ("after", after), ("limit", limit.map(String.init))])
            printJSON(try management.client().json(.get, path))
        }
    }

    struct Modify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save or delete records: a records/modify body read from a file (- for standard input); prints the answer as JSON.",
            discussion: """
                For example: echo '{"operations":[{"operationType":"forceDelete","record":{"recordName":"n1"}}]}' \
                | cumulus records modify --container iCloud.com.example.Notes --file -
                """)

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Option(help: "The records/modify body in JSON, or - for standard input.")
        var file: String

        func run() throws {
            var body = try readJSONObject(file, for: "records modify").objectValue ?? [:]
            if body["zoneID"] == nil, let zone = location.zone { body["zoneID"] = ["zoneName": .string(zone)] }
            printJSON(try management.client().json(.post, location.path("modify"), body: .object(body)))
        }
    }

    struct UploadAsset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload-asset",
            abstract: "Upload a file for a record type's ASSET field; prints the asset (its receipt) as JSON for a records modify.",
            discussion: """
                For example: cumulus records upload-asset --container iCloud.com.example.Notes --record-type Photo \
                --field image --file photo.png, then put the printed value in the field of a records/modify body.
                """)

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Option(name: .customLong("record-type"), help: "The record type.")
        var recordType: String

        @Option(help: "The ASSET field.")
        var field: String

        @Option(name: .customLong("record-name"), help: "The record the asset is for, if it exists already.")
        var recordName: String?

        @Option(help: "The file to upload.")
        var file: String

        func run() throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("records upload-asset: cannot read '\(file)'")
            }
            printJSON(
                try management.client().json(
                    .post,
                    location.path(
                        "assets",
                        query: [("recordType", recordType), ("field", field), ("recordName", recordName), ("zone", location.zone)]),
                    bytes: Array(data)))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every record of a type in a zone as JSON or CSV.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Where

        @Option(name: .customLong("record-type"), help: "The record type.")
        var recordType: String

        @Option(help: "json or csv.")
        var format = "json"

        func run() throws {
            let body = location.body(["query": ["recordType": .string(recordType)]])
            print(try management.client().text(.post, location.path("export", query: [("format", format)]), body: body), terminator: "")
        }
    }
}
