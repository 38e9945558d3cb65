import ArgumentParser
import CloudKitWire
import Console

/// `cumulus shares list|remove-participant|delete|leave`: the shares of a container's environment.
struct SharesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "List the shares of a container's environment, remove a participant, delete a share, or leave a shared zone.",
        subcommands: [List.self, RemoveParticipant.self, Delete.self, Leave.self])

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
            let shares = try management.client().result(
                SharesView.self, .get, ManagementPath("containers", target.container, target.environment.rawValue, "shares")
            ).shares
            if shares.isEmpty { print("No shares in \(target.environment) of \(target.container).") }
            for share in shares {
                let what = share.rootRecordName.map { "record \($0)" } ?? "whole zone"
                print(
                    [
                        share.ownerName ?? share.owner, share.zoneName, share.recordName, what, "public \(share.publicPermission)",
                        share.shortGUID,
                    ].joined(separator: "\t"))
                for participant in share.participants {
                    print(
                        "\t"
                            + [
                                participant.name ?? participant.userRecordName ?? participant.emailAddress ?? "",
                                participant.permission, participant.type, participant.acceptanceStatus,
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
            _ = try management.client().result(
                ShareChangeView.self, .delete, ManagementPath(segments: which.segments(target) + ["participants", user], query: []))
            print("Removed \(user) from share \(which.share).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a share; everyone in it loses access at once.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var which: ShareOptions

        func run() throws {
            _ = try management.client().result(ShareChangeView.self, .delete, ManagementPath(segments: which.segments(target), query: []))
            print("Deleted share \(which.share).")
        }
    }

    struct Leave: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a participant out of every share of a zone shared with them; the zone leaves their shared database.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "The participant who leaves: sign-in name or user record name.")
        var user: String

        @Option(help: "The zone's owner: sign-in name or user record name.")
        var owner: String

        @Option(help: "The shared zone.")
        var zone: String

        func run() throws {
            let left = try management.client().result(
                SharedZoneLeaving.self, .post,
                ManagementPath("containers", target.container, target.environment.rawValue, "shared", "zones", zone, "leave"),
                body: ["user": .string(user), "owner": .string(owner)])
            print("\(user) left zone \(zone) of \(owner): \(left.shares.joined(separator: ", ")).")
        }
    }
}
