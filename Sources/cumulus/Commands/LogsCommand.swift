import ArgumentParser
import CloudKitWire
import Console
import Foundation

/// `cumulus logs list|export|tail`: a container's request log, as the console's Logs page
/// filters, exports and follows it.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "List, export and follow a container's request log.",
        subcommands: [List.self, Export.self, Tail.self])

    /// The filters the Logs page offers, as query parameters.
    struct Filter: ParsableArguments {
        @Option(help: "The container identifier.")
        var container: String

        @Option(help: "Only calls to development or production.")
        var environment: String?

        @Option(help: "Only calls to public, private or shared.")
        var database: String?

        @Option(help: "Only this operation, such as records/query.")
        var operation: String?

        @Option(help: "Only calls by this user (sign-in name or user record name).")
        var user: String?

        @Option(help: "Only calls answered with this HTTP status.")
        var status: Int?

        @Flag(help: "Only calls that failed.")
        var errors = false

        @Option(help: "From this time: ISO 8601 (2026-11-24T14:05:09Z) or milliseconds since 1970.")
        var from: String?

        @Option(help: "Up to this time.")
        var to: String?

        func path(_ more: [String], _ extra: [(String, String?)] = []) -> ManagementPath {
            ManagementPath(
                segments: ["containers", container, "logs"] + more,
                query: [
                    ("environment", environment), ("database", database), ("operation", operation), ("user", user),
                    ("status", status.map(String.init)), ("errors", errors ? "1" : nil), ("from", from), ("to", to),
                ] + extra)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the latest calls the filters pass, newest first, as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var filter: Filter

        @Option(help: "At most this many calls (up to 1000). [default: 50]")
        var limit: Int?

        @Option(help: "Only calls older than this one (the page's last id), for the next page.")
        var before: Int?

        func run() throws {
            printJSON(
                try management.client().json(
                    .get, filter.path([], [("limit", limit.map(String.init)), ("before", before.map(String.init))])))
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every call the filters pass as JSON lines or CSV.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var filter: Filter

        @Option(help: "jsonl or csv.")
        var format = "jsonl"

        func run() throws {
            print(try management.client().text(.get, filter.path(["export"], [("format", format)])), terminator: "")
        }
    }

    struct Tail: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a running server's request log: each new call the filters pass, one JSON line each, until interrupted.",
            discussion: "Needs --server (or CUMULUS_SERVER): the calls are those the running server answers.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var filter: Filter

        @Option(help: "Stop after this many calls.")
        var count: Int?

        func run() throws {
            guard case .remote(let base, let token) = try management.client().transport else {
                throw ValidationError("logs tail follows a running server: give --server URL (or set CUMULUS_SERVER)")
            }
            try RemoteManagement.follow(base: base, target: filter.path(["tail"]).target, token: token, event: "request", count: count) {
                // Unbuffered, so that a pipe sees each call as it comes.
                FileHandle.standardOutput.write(Data(($0 + "\n").utf8))
            }
        }
    }
}
