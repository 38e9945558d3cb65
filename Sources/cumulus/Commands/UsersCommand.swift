import ArgumentParser
import CloudStore
import Foundation

/// `cumulus users add --container ID NAME`: adds an app user, reading the password from standard input.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Add and list the users who sign in to a container's apps.",
        subcommands: [Add.self, List.self, Token.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user; the password is read from standard input (one line).",
            discussion: "For example: printf '%s\\n' 'a long passphrase' | cumulus users add --container iCloud.com.example.Notes alice")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with.")
        var name: String

        @Option(help: "The user's email address.")
        var email: String?

        @Option(name: .customLong("first-name"), help: "Given name. [default: the sign-in name]")
        var firstName: String?

        @Option(name: .customLong("last-name"), help: "Family name.")
        var lastName: String?

        func run() throws {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("Give the password on standard input, for example: printf '%s\\n' 'secret' | cumulus users add …")
            }
            let user = try data.openStore().addUser(
                try ContainerIdentifier(container), name: name, password: line, emailAddress: email, firstName: firstName, lastName: lastName)
            print(user.userRecordName)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's users.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            for user in try data.openStore().users(try ContainerIdentifier(container)) {
                print("\(user.userRecordName)\t\(user.name)\t\(user.emailAddress ?? "")")
            }
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a user in and print a web auth token (ckWebAuthToken), for scripts; the password is read from standard input.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with.")
        var name: String

        @Flag(name: .customLong("keep-signed-in"), help: "Make the token last two weeks instead of 30 minutes.")
        var keepSignedIn = false

        func run() throws {
            guard let password = readLine(strippingNewline: true) else {
                throw ValidationError("Give the password on standard input")
            }
            let signedIn = try data.openStore().signIn(try ContainerIdentifier(container), name: name, password: password, keepSignedIn: keepSignedIn)
            print(signedIn.webAuthToken)
        }
    }
}
