import ArgumentParser
import Testing

@testable import Console
@testable import cumulus

/// Every operation of the management API has a `cumulus` command: the CLI's table names one for
/// each operation of the route table, and each command it names exists.
@Suite struct ManagementCommandsTests {
    /// Every command of `cumulus`, as the words after `cumulus` (`users discoverable`).
    static func commands(of command: any ParsableCommand.Type = Cumulus.self, prefix: [String] = []) -> Set<String> {
        var found: Set<String> = []
        for subcommand in command.configuration.subcommands {
            let name = subcommand.configuration.commandName ?? subcommand._commandName
            let path = prefix + [name]
            found.insert(path.joined(separator: " "))
            found.formUnion(commands(of: subcommand, prefix: path))
        }
        return found
    }

    @Test func everyManagementOperationHasACommandAndEveryNamedCommandExists() {
        let operations = Set(ManagementAPI.routes.map(\.operation))
        let table = ManagementCommands.byOperation
        #expect(operations.subtracting(table.keys).sorted() == [], "operations without a command: add one and name it in the table")
        #expect(Set(table.keys).subtracting(operations).sorted() == [], "the table names operations the API no longer has")
        let commands = Self.commands()
        #expect(commands.contains("users discoverable"))
        let missing = table.filter { !commands.contains($0.value) }.map { "\($0.key) → cumulus \($0.value)" }.sorted()
        #expect(missing == [], "the table names commands that do not exist")
    }
}
