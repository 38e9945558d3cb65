import ArgumentParser
import CloudKitWire
import Console

/// What a seed or a masked copy takes: record types, or a query, in a database.
struct RecordSelectionOptions: ParsableArguments {
    @Option(name: .customLong("type"), help: "A record type to take whole (repeat for several).")
    var recordTypes: [String] = []

    @Option(
        help: """
            A CloudKit query object instead of types, for example \
            '{"recordType":"Person","filterBy":[{"fieldName":"team","comparator":"EQUALS","fieldValue":{"value":"engines"}}]}'.
            """)
    var query: String?

    @Option(help: "The database: public (the default) or private.")
    var database: String = "public"

    @Option(help: "The owner of a private database (sign-in name or user record name).")
    var user: String?

    /// The body members naming the selection.
    func body() throws -> JSONObject {
        var body: JSONObject = ["recordTypes": .array(recordTypes.map(JSONValue.string)), "database": .string(database)]
        if let user { body["user"] = .string(user) }
        if let query {
            do {
                body["query"] = try JSONValue.parse(query)
            } catch {
                throw ManagementFailure(description: "--query is not JSON: \(error)")
            }
        }
        return body
    }
}

/// `cumulus seeds list|save|delete`: named seeds of development, which `cumulus reset --seed`
/// restores.
struct SeedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seeds", abstract: "List, save and delete seeds: development records a reset can restore.",
        subcommands: [List.self, Save.self, Delete.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's seeds as JSON.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws { printJSON(try management.client().json(.get, ManagementPath("containers", container, "seeds"))) }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save development's records of some types, or those a query matches, as a named seed.",
            discussion: "A seed of the same name is replaced. Its records keep their zones, names, fields and asset files.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @OptionGroup var selection: RecordSelectionOptions

        @Argument(help: "The seed's name: letters, digits, '.', '-' and '_'.")
        var name: String

        func run() throws {
            var body = try selection.body()
            body["name"] = .string(name)
            let seed = try management.client().result(
                SeedView.self, .post, ManagementPath("containers", container, "seeds"), body: .object(body))
            print(
                "Saved seed \(seed.name): \(seed.records) records of \(seed.recordTypes.joined(separator: ", ")), \(seed.blobs) asset files."
            )
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a seed.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The seed's name.")
        var name: String

        func run() throws {
            _ = try management.client().result(SeedDeletion.self, .delete, ManagementPath("containers", container, "seeds", name))
            print("Deleted seed \(name).")
        }
    }
}

/// `cumulus personal-fields list|set`: the fields whose values a copy to development masks.
struct PersonalFieldsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "personal-fields", abstract: "List the fields marked personal, and mark or unmark one.",
        subcommands: [List.self, Set.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's personal fields as JSON.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws { printJSON(try management.client().json(.get, ManagementPath("containers", container, "personal-fields"))) }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a field personal (its values are faked when production is copied to development), or unmark it.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Option(name: .customLong("type"), help: "The record type.")
        var recordType: String

        @Option(help: "The field.")
        var field: String

        @Flag(help: "Take the mark off.")
        var off = false

        func run() throws {
            let marks = try management.client().result(
                PersonalFieldsView.self, .put, ManagementPath("containers", container, "personal-fields", recordType, field),
                body: ["personal": .bool(!off)])
            print("\(recordType).\(field) is \(off ? "not " : "")personal; personal fields: \(marks.fields.joined(separator: ", ")).")
        }
    }
}

/// `cumulus copy-to-development --container C --type T [--query JSON]`: production's records in
/// development, their personal fields masked.
struct CopyToDevelopmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-to-development",
        abstract: "Copy production's records of some types, or those a query matches, to development, with personal fields faked.",
        discussion: """
            Each value of a field marked personal (cumulus personal-fields set) becomes a fake of the same kind and shape, \
            the same fake for the same value, so references and joins still line up. Record names stay as they are.
            """)

    @OptionGroup var management: ManagementOptions

    @Option(help: "The container identifier.")
    var container: String

    @OptionGroup var selection: RecordSelectionOptions

    func run() throws {
        let copy = try management.client().result(
            MaskedCopyView.self, .post, ManagementPath("containers", container, "copy-to-development"), body: .object(try selection.body()))
        print(
            "Copied \(copy.copied) records to development (\(copy.unchanged) unchanged), \(copy.maskedValues) personal values masked"
                + (copy.maskedFields.isEmpty ? "." : " in \(copy.maskedFields.joined(separator: ", ")).")
                + " \(copy.blobs) asset files copied.")
    }
}
