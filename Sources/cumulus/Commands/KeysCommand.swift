import ArgumentParser
import CloudKitWire
import CloudStore
import Console
import Foundation

/// `cumulus keys add|list|revoke`: the server-to-server keys of a container, on the data
/// directory or a remote server (`--server`).
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Register, list and revoke server-to-server keys.", subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an EC P-256 public key (PEM) and print its key ID.",
            discussion: """
                Make a key pair with:
                  openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem
                  openssl ec -in eckey.pem -pubout -out eckey.pub.pem
                then register eckey.pub.pem. Requests signed with eckey.pem act as the public database's administrator.
                """)

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Option(name: .customLong("public-key"), help: "The public key file (PEM).")
        var publicKey: String

        @Option(help: "A label for the key.")
        var name = "Server key"

        func run() throws {
            guard let data = FileManager.default.contents(atPath: publicKey), let pem = String(data: data, encoding: .utf8) else {
                throw ValidationError("Cannot read the public key file \(publicKey)")
            }
            let key = try management.client().result(
                ServerKeyView.self, .post, ManagementPath("containers", target.container, "keys"),
                body: ["environment": .string(target.environment.rawValue), "publicKey": .string(pem), "name": .string(name)])
            print(key.keyID)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's server-to-server keys.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            for key in try management.client().result(ServerKeysView.self, .get, ManagementPath("containers", container, "keys")).keys {
                print(
                    [
                        key.keyID, key.environment.rawValue, key.name, "acts as " + key.userRecordName, "fingerprint " + key.fingerprint,
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a server-to-server key: a running server refuses its signatures from the next request on.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The key ID, as `cumulus keys list` prints it.")
        var keyID: String

        func run() throws {
            _ = try management.client().result(RevokedView.self, .delete, ManagementPath("keys", keyID))
            print("Revoked server-to-server key \(keyID)")
        }
    }
}
