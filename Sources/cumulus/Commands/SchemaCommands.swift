import ArgumentParser
import CloudStore
import Foundation

/// `cumulus export-schema`: prints an environment's schema in CloudKit's schema language.
struct ExportSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-schema", abstract: "Print an environment's schema in CloudKit's schema language (.ckdb).")

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var target: ContainerOptions

    @Option(name: .customLong("output-file"), help: "Write to this file instead of standard output.")
    var outputFile: String?

    func run() throws {
        let text = try data.openStore().exportSchema(try target.identifier(), target.environment)
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

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var target: ContainerOptions

    @Option(help: "The schema file (.ckdb).")
    var file: String

    func run() throws {
        let schema = try data.openStore().validateSchema(try readSchemaFile(file), for: try target.identifier(), target.environment)
        print("Schema is valid: \(schema.recordTypes.count) record types, \(schema.roles.count) roles.")
    }
}

/// `cumulus import-schema`: applies a schema file to development.
struct ImportSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-schema",
        abstract: "Apply a schema file to development: adds types and fields, sets indexes, roles and grants.",
        discussion: "Import never deletes data: types and fields the file leaves out stay, without indexes.")

    @OptionGroup var data: DataDirectoryOptions
    @OptionGroup var target: ContainerOptions

    @Option(help: "The schema file (.ckdb).")
    var file: String

    func run() throws {
        let store = try data.openStore()
        let container = try target.identifier()
        try store.importSchema(try readSchemaFile(file), into: container, target.environment)
        let schema = try store.schema(container, target.environment)
        print("Imported schema into \(container) \(target.environment): \(schema.recordTypes.count) record types.")
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
