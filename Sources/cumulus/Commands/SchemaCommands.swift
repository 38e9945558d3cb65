import ArgumentParser
import CloudKitWire
import CloudStore
import Console
import Foundation

/// `cumulus export-schema`: prints an environment's schema in CloudKit's schema language, from
/// the data directory or a remote server (`--server`).
struct ExportSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-schema", abstract: "Print an environment's schema in CloudKit's schema language (.ckdb).")

    @OptionGroup var management: ManagementOptions
    @OptionGroup var target: ContainerOptions

    @Option(name: .customLong("output-file"), help: "Write to this file instead of standard output.")
    var outputFile: String?

    func run() throws {
        let text = try management.client().text(
            .get, ManagementPath("containers", target.container, target.environment.rawValue, "schema", query: [("format", "ckdb")]))
        if let outputFile {
            try Data(text.utf8).write(to: URL(fileURLWithPath: outputFile))
        } else {
            print(text, terminator: "")
        }
    }
}

/// `cumulus validate-schema`: checks a schema file as an import would, changing nothing.
struct ValidateSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate-schema", abstract: "Check a schema file as import-schema would, without changing anything.")

    @OptionGroup var management: ManagementOptions
    @OptionGroup var target: ContainerOptions

    @Option(help: "The schema file (.ckdb).")
    var file: String

    func run() throws {
        let answer = try SchemaValidation(
            json: try management.client().json(
                .post, ManagementPath("containers", target.container, target.environment.rawValue, "schema", "validate"),
                text: try readSchemaFile(file)))
        print("Schema is valid: \(answer.recordTypes) record types, \(answer.roles) roles.")
    }
}

/// `cumulus import-schema`: applies a schema file to development.
struct ImportSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-schema",
        abstract: "Apply a schema file to development: adds types and fields, sets indexes, roles and grants.",
        discussion:
            "Import never deletes data: types and fields the file leaves out stay, without indexes. "
            + "With --dry-run, prints what the import would add, change and remove, and changes nothing.")

    @OptionGroup var management: ManagementOptions
    @OptionGroup var target: ContainerOptions

    @Option(help: "The schema file (.ckdb).")
    var file: String

    @Flag(name: .customLong("dry-run"), help: "Print what the import would add, change and remove, without importing.")
    var dryRun = false

    func run() throws {
        if dryRun {
            let preview = try SchemaImportPreviewView(
                json: try management.client().json(
                    .put,
                    ManagementPath("containers", target.container, target.environment.rawValue, "schema", query: [("dryRun", "true")]),
                    text: try readSchemaFile(file)))
            print("Importing into \(target.container) \(target.environment) would change:")
            for line in preview.lines { print("  " + line) }
            return
        }
        let schema = try EnvironmentSchemaView(
            json: try management.client().json(
                .put, ManagementPath("containers", target.container, target.environment.rawValue, "schema"), text: try readSchemaFile(file))
        )
        print("Imported schema into \(target.container) \(target.environment): \(schema.recordTypes.count) record types.")
    }
}

/// Reads a schema file as UTF-8 text.
func readSchemaFile(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("Cannot read the schema file \(path)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw ValidationError("The schema file \(path) is not UTF-8 text")
    }
    return text
}

/// `cumulus delete-schema`: deletes a field, or a whole record type, from development, as
/// CloudKit allows there. Without `--yes` it only counts what would be removed.
struct DeleteSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-schema",
        abstract: "Delete a field or a record type from development, with the values or records it holds.",
        discussion: "Without --yes, prints what would be removed and changes nothing.")

    @OptionGroup var management: ManagementOptions
    @OptionGroup var target: ContainerOptions

    @Option(name: .customLong("record-type"), help: "The record type.")
    var recordType: String

    @Option(help: "The field to delete; without it the whole record type goes.")
    var field: String?

    @Flag(help: "Delete, rather than count what would go.")
    var yes = false

    func run() throws {
        let base = ["containers", target.container, target.environment.rawValue, "record-types", recordType]
        let answer: SchemaDeletionView
        if yes {
            answer = try SchemaDeletionView(
                json: try management.client().json(
                    .delete, ManagementPath(segments: base + (field.map { ["fields", $0] } ?? []), query: [])))
            print("Deleted: \(answer.summary).")
        } else {
            answer = try SchemaDeletionView(
                json: try management.client().json(.get, ManagementPath(segments: base + ["deletion"], query: [("field", field)])))
            print("Would remove \(answer.summary). Run again with --yes to delete.")
        }
    }
}
