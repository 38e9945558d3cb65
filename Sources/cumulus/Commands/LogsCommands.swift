import ArgumentParser
import CloudStore
import Console
import Foundation

/// `cumulus logs list|show|export`: a container's request log, as the console's Logs page shows it.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Read a container's request log: list calls, show one call with why it failed, or export.",
        subcommands: [List.self, Show.self, Export.self, Tail.self])

    /// The filters `list` and `export` share, as the management API's query parameters.
    struct Filters: ParsableArguments {
        @Option(help: "The container identifier.")
        var container: String

        @Option(help: "development or production; both when not given.")
        var environment: Environment?

        @Option(help: "public, private or shared.")
        var database: String?

        @Option(help: "An operation, such as records/modify.")
        var operation: String?

        @Option(help: "A user: sign-in name or user record name.")
        var user: String?

        @Option(help: "An HTTP status.")
        var status: Int?

        @Flag(help: "Only failures: a status of 400 or more, or records that failed inside a 200.")
        var errors = false

        @Option(help: "From this time: ISO 8601 (2026-11-24T14:05:09Z) or milliseconds since 1970.")
        var from: String?

        @Option(help: "Up to this time.")
        var to: String?

        var query: [(String, String?)] {
            [
                ("environment", environment?.rawValue), ("database", database), ("operation", operation), ("user", user),
                ("status", status.map(String.init)), ("errors", errors ? "1" : nil), ("from", from), ("to", to),
            ]
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List calls, newest first: id, time (ms since 1970), operation, database, status and code, failed records, request id.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var filters: Filters

        @Option(help: "At most this many calls (up to 1000).")
        var limit = 50

        func run() throws {
            let log = try management.client().result(
                RequestLogView.self, .get,
                ManagementPath(segments: ["containers", filters.container, "logs"], query: filters.query + [("limit", String(limit))]))
            if log.entries.isEmpty { print("No calls match.") }
            for entry in log.entries {
                print(
                    [
                        String(entry.id), String(entry.time), entry.operation, entry.database.isEmpty ? "-" : entry.database,
                        String(entry.status) + (entry.serverErrorCode.map { " " + $0 } ?? ""), entry.resultFailureSummary ?? "-",
                        entry.requestID,
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one call: why it failed, the credential, user agent, record types and zones, and each outcome.",
            discussion:
                "REQUEST is the call's request id (as X-Apple-Request-UUID told the client) or its id in the log (from `logs list`).")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Option(help: "development or production; either when not given.")
        var environment: Environment?

        @Argument(help: "The request id, or the call's id in the log.")
        var request: String

        func run() throws {
            let client = try management.client()
            let entry = try client.result(
                RequestLogEntryView.self, .get,
                ManagementPath(
                    segments: ["containers", container, "logs", "requests", request], query: [("environment", environment?.rawValue)])
            ).entry
            // The user by name first, as the console names them; by record name to an operator who
            // may not read the users (a viewer), who may still read the call.
            let name = entry.user.flatMap { user in
                try? client.result(
                    UsersView.self, .get, ManagementPath(segments: ["containers", container, "users"], query: [("search", user)])
                ).users.first { $0.userRecordName == user }?.name
            }
            for line in Self.lines(entry, userName: name) { print(line) }
        }

        /// The call as labelled lines, the user by name when known; what the log did not keep reads "-".
        static func lines(_ entry: RequestLogEntry, userName: String?) -> [String] {
            let time = Date(timeIntervalSince1970: Double(entry.time) / 1000)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let failed = entry.failedResults
            let results =
                entry.results.map { total in
                    ([total - failed > 0 ? "\(total - failed) succeeded" : nil].compactMap { $0 }
                        + entry.resultErrorsByCount.map { "\($0.count) \($0.code)" }).joined(separator: ", ")
                        + " (of \(total))"
                } ?? "-"
            let fields: [(String, String?)] = [
                ("request", entry.requestID), ("id", String(entry.id)), ("time", formatter.string(from: time)),
                ("operation", entry.operation), ("environment", entry.environment),
                ("database", entry.database.isEmpty ? nil : entry.database),
                ("user", entry.user.map { user in userName.map { "\($0) (\(user))" } ?? user } ?? "world"),
                ("status", String(entry.status) + (entry.serverErrorCode.map { " " + $0 } ?? "")),
                ("failures", entry.resultFailureSummary), ("reason", entry.reason), ("results", results),
                ("credential", entry.credential?.description), ("user agent", entry.userAgent),
                ("record types", entry.recordTypes.map { $0.replacingOccurrences(of: ",", with: ", ") }),
                ("zones", entry.zones.map { $0.replacingOccurrences(of: ",", with: ", ") }),
                ("took", "\(entry.durationMicroseconds) µs"), ("bytes", "\(entry.bytesIn) in, \(entry.bytesOut) out"),
                ("client", entry.clientAddress),
            ]
            return fields.map { label, value in (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + (value ?? "-") }
                + traceLines(entry.trace)
        }

        /// The call's access decisions, each with every grant or rule weighed: what refused it,
        /// or, for a sampled call, what allowed it. Labelled lines, as the call's other fields.
        static func traceLines(_ trace: [AccessExplanation]) -> [String] {
            func line(_ label: String, _ value: String) -> String {
                (label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value
            }
            guard !trace.isEmpty else { return [line("access", "- (no decision recorded)")] }
            return trace.enumerated().flatMap { index, explanation in
                let asked = [
                    explanation.caller, explanation.permission?.rawValue ?? "reach", explanation.recordType.map { "a \($0)" },
                    explanation.recordName.map { "record \($0)" }, explanation.zone.map { "in zone \($0)" },
                    explanation.database.isEmpty ? nil : "of the \(explanation.database) database",
                ].compactMap { $0 }.joined(separator: " ")
                return [
                    line(
                        trace.count == 1 ? "access" : "access \(index + 1)",
                        "\(explanation.decision.isAllowed ? "allowed" : "denied") — \(explanation.decision.rule)"),
                    line("  asked", asked),
                ] + explanation.checks.map { line("  weighed", "\($0.gives ? "gives" : "no   ") \($0.rule): \($0.why)") }
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the filtered log, newest first, as JSON lines or CSV, with each call's reason, credential and outcomes.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var filters: Filters

        @Option(help: "jsonl or csv.")
        var format = "jsonl"

        func run() throws {
            let text = try management.client().text(
                .get,
                ManagementPath(segments: ["containers", filters.container, "logs", "export"], query: filters.query + [("format", format)]))
            print(text, terminator: "")
        }
    }

    struct Tail: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a running server's request log: each new call the filters pass, one JSON line each, until interrupted.",
            discussion: "Needs --server (or CUMULUS_SERVER): the calls are those the running server answers.")

        @OptionGroup var management: ManagementOptions

        @OptionGroup var filters: Filters

        @Option(help: "Stop after this many calls.")
        var count: Int?

        func run() throws {
            guard case .remote(let base, let token) = try management.client().transport else {
                throw ValidationError("logs tail follows a running server: give --server URL (or set CUMULUS_SERVER)")
            }
            let path = ManagementPath(segments: ["containers", filters.container, "logs", "tail"], query: filters.query)
            try RemoteManagement.follow(base: base, target: path.target, token: token, event: "request", count: count) {
                // Unbuffered, so that a pipe sees each call as it comes.
                FileHandle.standardOutput.write(Data(($0 + "\n").utf8))
            }
        }
    }
}

/// `cumulus usage --container ID [--environment E] [--range hour|day|week]`: an environment's
/// calls over a span in figures, as the console's Usage page shows them beside its charts.
struct UsageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract:
            "Show an environment's calls over the last hour, day or week: totals, errors, answer times, the busiest second, by operation.",
        discussion: "Without --range, the shortest range that holds the last week's calls. `cumulus limits` shows storage and transfer.")

    @OptionGroup var management: ManagementOptions

    @OptionGroup var target: ContainerOptions

    @Option(help: "hour, day or week.")
    var range: String?

    func run() throws {
        let view = try management.client().result(
            UsageSummaryView.self, .get,
            ManagementPath(
                segments: ["containers", target.container, target.environment.rawValue, "usage", "summary"], query: [("range", range)]))
        for line in Self.lines(view) { print(line) }
    }

    /// The summary as labelled lines, then one line per operation.
    static func lines(_ view: UsageSummaryView) -> [String] {
        let summary = view.summary
        let totals = summary.totals
        func milliseconds(_ microseconds: Int64?) -> String {
            microseconds.map { String(format: "%.1f ms", Double($0) / 1000) } ?? "-"
        }
        func percent(_ share: Double) -> String { String(format: share > 0 && share < 0.01 ? "%.2f %%" : "%.0f %%", share * 100) }
        let limit = view.requestsPerSecondLimit
        let limitText = limit == limit.rounded() ? String(Int64(limit)) : String(limit)
        let peak = summary.peakPerSecond.map { "\($0) a second, \(percent(view.peakShareOfLimit ?? 0)) of the limit of \(limitText)" }
        var lines = [
            "range:          \(view.range)",
            "requests:       \(totals.requests)",
            "errors:         \(totals.errors) (\(percent(view.errorRate)))",
            "answer time:    p50 \(milliseconds(totals.p50Microseconds)), p99 \(milliseconds(totals.p99Microseconds))",
            "busiest second: \(peak ?? "-")",
            "bandwidth:      \(totals.bytesIn) bytes in, \(totals.bytesOut) bytes out",
        ]
        if totals.requests == 0 { lines.append("No calls in the last \(view.range).") }
        if summary.callsRead < totals.requests {
            lines.append("By operation, from the newest \(summary.callsRead) calls the log still keeps:")
        }
        for operation in summary.operations {
            lines.append(
                [
                    operation.operation, "\(operation.requests) requests", "\(operation.errors) errors",
                    "\(operation.partialFailures) with failed records", "p99 \(milliseconds(operation.p99Microseconds))",
                ].joined(separator: "\t"))
        }
        return lines
    }
}
