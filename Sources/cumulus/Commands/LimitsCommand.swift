import ArgumentParser
import CloudKitWire
import Console

/// `cumulus limits --container ID [--environment E] [--preset P] [--requests-per-second N] …`:
/// shows an environment's limits and usage, and changes them when asked to.
struct LimitsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract: "Show or change an environment's limits: requests per second, storage and transfer per month.",
        discussion: """
            Without a change, prints the limits and what is used. --preset starts from `standard` (5,000 requests a \
            second) or `cloudkit` (CloudKit's public database, 40 a second); each other option sets one limit, `none` \
            removing a storage or transfer limit. Past the rate, the API answers THROTTLED with retryAfter; past \
            storage or transfer, QUOTA_EXCEEDED.
            """)

    @OptionGroup var management: ManagementOptions

    @Option(help: "The container identifier.")
    var container: String

    @Option(help: "development or production.")
    var environment = "development"

    @Option(help: "Start from a preset: standard or cloudkit.")
    var preset: String?

    @Option(name: .customLong("requests-per-second"), help: "Requests a second, sustained.")
    var requestsPerSecond: String?

    @Option(help: "Requests at once after a quiet time.")
    var burst: String?

    @Option(name: .customLong("storage-bytes"), help: "Bytes of records the environment may hold, or none.")
    var storageBytes: String?

    @Option(name: .customLong("transfer-bytes"), help: "Bytes of requests and answers a month, or none.")
    var transferBytes: String?

    func run() throws {
        let client = try management.client()
        var changes: JSONObject = [:]
        if let preset { changes["preset"] = .string(preset) }
        if let requestsPerSecond { changes["requestsPerSecond"] = .string(requestsPerSecond) }
        if let burst { changes["burst"] = .string(burst) }
        for (key, value) in [("storageBytes", storageBytes), ("transferBytesPerMonth", transferBytes)] {
            guard let value else { continue }
            changes[key] = value == "none" ? .null : .string(value)
        }
        let path = ManagementPath("containers", container, environment, "limits")
        if !changes.isEmpty {
            _ = try client.result(LimitsView.self, .put, path, body: .object(changes))
            print("Saved the limits of \(environment) of \(container).")
        }
        let usage = try client.result(
            UsageView.self, .get, ManagementPath("containers", container, environment, "usage", query: [("range", "hour")]))
        let limits = usage.limits
        let rate = limits.requestsPerSecond
        let preset = limits.preset.map { " (\($0))" } ?? ""
        print("requests:  \(rate == rate.rounded() ? String(Int64(rate)) : String(rate)) a second, bursts of \(limits.burst)\(preset)")
        print(
            "storage:   \(usage.stored.recordBytes) bytes in \(usage.stored.records) records, limit "
                + (limits.storageBytes.map { "\($0) bytes" } ?? "none"))
        print("history:   \(usage.stored.historyBytes) bytes of kept versions and trash, counted in storage")
        print(
            "transfer:  \(usage.transferThisMonth) bytes this month, limit "
                + (limits.transferBytesPerMonth.map { "\($0) bytes" } ?? "none"))
    }
}
