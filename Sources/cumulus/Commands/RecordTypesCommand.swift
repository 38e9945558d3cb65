import ArgumentParser
import CloudKitWire
import Console

/// `cumulus record-types create|add-field|indexes`: one change to development's schema at a
/// time, as the console's Schema page makes them (`import-schema` replaces the whole schema).
struct RecordTypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-types", abstract: "Create a record type, add a field, set indexes: one schema change at a time.",
        discussion: "`delete-schema` deletes types and fields; `import-schema` replaces the whole schema.",
        subcommands: [Create.self, AddField.self, Indexes.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a record type in development.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The record type's name.")
        var name: String

        func run() throws {
            _ = try management.client().json(.post, target.path(["record-types"]), body: ["name": .string(name)])
            print("Created record type \(name)")
        }
    }

    struct AddField: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-field", abstract: "Add a field to a record type in development.",
            discussion:
                "For example: cumulus record-types add-field --container iCloud.com.example.Notes Note title STRING --index QUERYABLE")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The record type.")
        var recordType: String

        @Argument(help: "The field's name.")
        var name: String

        @Argument(help: "Its type: STRING, INT64, DOUBLE, TIMESTAMP, REFERENCE, ASSET, LOCATION, BYTES or LIST<…>.")
        var type: String

        @Option(help: "An index: QUERYABLE, SORTABLE or SEARCHABLE; repeat for more.")
        var index: [String] = []

        func run() throws {
            _ = try management.client().json(
                .post, target.path(["record-types", recordType, "fields"]),
                body: ["name": .string(name), "type": .string(type), "indexes": .array(index.map(JSONValue.string))])
            print("Added \(name) \(type) to \(recordType)")
        }
    }

    struct Indexes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the indexes of one field, or of several fields of a type at once.",
            discussion: """
                One field: cumulus record-types indexes --container C Note title --index QUERYABLE --index SORTABLE \
                (no --index removes them all). Several: cumulus record-types indexes --container C Note --set title=QUERYABLE,SORTABLE --set rank=
                """)

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The record type.")
        var recordType: String

        @Argument(help: "The field whose indexes --index sets.")
        var field: String?

        @Option(help: "An index of the field: QUERYABLE, SORTABLE or SEARCHABLE; repeat for more.")
        var index: [String] = []

        @Option(help: "FIELD=INDEX,INDEX…: a field's indexes, set with the others in one change; repeat for each field.")
        var set: [String] = []

        func validate() throws {
            if (field == nil) == set.isEmpty { throw ValidationError("Name one field (with --index), or give --set FIELD=INDEXES") }
        }

        func run() throws {
            // One field's route, or the type's for several fields in one change.
            let (path, body, done): (ManagementPath, JSONValue, String)
            if let field {
                path = target.path(["record-types", recordType, "fields", field, "indexes"])
                body = ["indexes": .array(index.map(JSONValue.string))]
                done = "Set the indexes of \(recordType).\(field): \(index.isEmpty ? "none" : index.joined(separator: ", "))"
            } else {
                var indexes: JSONObject = [:]
                for entry in set {
                    let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard parts.count == 2 else { throw ValidationError("--set takes FIELD=INDEX,INDEX…, not '\(entry)'") }
                    indexes[String(parts[0])] = .array(parts[1].split(separator: ",").map { .string(String($0)) })
                }
                path = target.path(["record-types", recordType, "indexes"])
                body = ["indexes": .object(indexes)]
                done = "Set the indexes of \(set.count) field\(set.count == 1 ? "" : "s") of \(recordType)"
            }
            _ = try management.client().json(.put, path, body: body)
            print(done)
        }
    }
}
