import ArgumentParser
import CloudKitWire

/// `cumulus shares list|remove-participant|delete`: the shares of a container's environment.
struct SharesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares", abstract: "List the shares of a container's environment, remove a participant, or delete a share.",
        subcommands: [List.self, RemoveParticipant.self, Delete.self])

    /// `--owner`, `--zone` and the share's record name: which share.
    struct ShareOptions: ParsableArguments {
        @Option(help: "The share's owner: sign-in name or user record name.")
        var owner: String

        @Option(help: "The zone the share is in.")
        var zone: String

        @Argument(help: "The share's record name.")
        var share: String

        func segments(_ target: ContainerOptions) -> [String] {
            ["containers", target.container, target.environment.rawValue, "shares", owner, zone, share]
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every share with its participants.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        func run() throws {
            let answer = try management.client().json(.get, ManagementPath("containers", target.container, target.environment.rawValue, "shares"))
            let shares = answer["shares"]?.arrayValue ?? []
            if shares.isEmpty { print("No shares in \(target.environment) of \(target.container).") }
            for share in shares {
                let owner = share["ownerName"]?.stringValue ?? share["owner"]?.stringValue ?? ""
                let what = share["rootRecordName"]?.stringValue.map { "record \($0)" } ?? "whole zone"
                print([
                    owner, share["zoneName"]?.stringValue ?? "", share["recordName"]?.stringValue ?? "", what,
                    "public \(share["publicPermission"]?.stringValue ?? "")", share["shortGUID"]?.stringValue ?? "",
                ].joined(separator: "\t"))
                for participant in share["participants"]?.arrayValue ?? [] {
                    print("\t" + [
                        participant["name"]?.stringValue ?? participant["userRecordName"]?.stringValue
                            ?? participant["emailAddress"]?.stringValue ?? "",
                        participant["permission"]?.stringValue ?? "", participant["type"]?.stringValue ?? "",
                        participant["acceptanceStatus"]?.stringValue ?? "",
                    ].joined(separator: "\t"))
                }
            }
        }
    }

    struct RemoveParticipant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-participant", abstract: "Take a participant out of a share; they lose access at once.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var which: ShareOptions

        @Option(help: "The participant: sign-in name or user record name.")
        var user: String

        func run() throws {
            _ = try management.client().json(.delete, ManagementPath(segments: which.segments(target) + ["participants", user], query: []))
            print("Removed \(user) from share \(which.share).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a share; everyone in it loses access at once.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var which: ShareOptions

        func run() throws {
            _ = try management.client().json(.delete, ManagementPath(segments: which.segments(target), query: []))
            print("Deleted share \(which.share).")
        }
    }
}
