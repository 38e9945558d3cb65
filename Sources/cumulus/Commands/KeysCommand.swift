import ArgumentParser
import CloudStore
import Foundation

/// `cumulus keys add --container ID --public-key FILE`: registers a server-to-server key and prints its key ID.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Register and list server-to-server keys.", subcommands: [Add.self, List.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an EC P-256 public key (PEM) and print its key ID.",
            discussion: """
            Make a key pair with:
              openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem
              openssl ec -in eckey.pem -pubout -out eckey.pub.pem
            then register eckey.pub.pem. Requests signed with eckey.pem act as the public database's administrator.
            """)

        @OptionGroup var data: DataDirectoryOptions
        @OptionGroup var target: ContainerOptions

        @Option(name: .customLong("public-key"), help: "The public key file (PEM).")
        var publicKey: String

        @Option(help: "A label for the key.")
        var name = "Server key"

        func run() throws {
            guard let data = FileManager.default.contents(atPath: publicKey), let pem = String(data: data, encoding: .utf8) else {
                throw ValidationError("Cannot read the public key file \(publicKey)")
            }
            let key = try self.data.openStore().addServerKey(try target.identifier(), target.environment, publicKeyPEM: pem, name: name)
            print(key.keyID)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's server-to-server keys.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            for key in try data.openStore().serverKeys(try ContainerIdentifier(container)) {
                print("\(key.keyID)\t\(key.environment)\t\(key.name)\tacts as \(key.userRecordName)")
            }
        }
    }
}
