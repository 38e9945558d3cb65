import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// An environment's usage against its limits, the form that changes the limits, and charts
/// over the last hour, day or week of requests, errors, answer times, bandwidth and storage,
/// drawn on the server as SVG.
///
/// Under `/console/containers/C/ENV/usage`: `GET` (`?range=hour|day|week`), `POST /limits`.
struct UsagePages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// What "storage" means on every page that shows it (Containers, Zones, Usage), in words:
    /// the figure is ``EnvironmentUsage/storageBytes``'s (a zone's, its records' alone).
    static let storageDefinition =
        "Storage is the bytes of the records' fields, as the 1 MB record limit and the storage limit count them, "
        + "with the versions the history and trash keep; the database file's indexes and the asset files are not counted."

    /// The templates these pages render.
    static let templates = ["console.usage", "console.chart"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/usage"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base + "/limits") { request in try pages.saveLimits(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        // Without a choice, the shortest range that holds the last week's calls, so that they
        // are not squeezed against the right edge of a longer one; one read gives all the page shows.
        let overview = try actions.usageOverview(
            of: try location.identifier, environment: location.environment, range: UsageRange(rawValue: request.query("range") ?? ""),
            as: request.identity)
        let range = overview.range
        let usage = overview.usage
        let summary = overview.summary.summary
        let zone = Formatting.timeZone(of: request.http)
        let limits = usage.limits
        let rate = limits.requestsPerSecond
        let burst = limits.burst
        let storageLimit = limits.storageBytes
        let transferLimit = limits.transferBytesPerMonth
        let stored = usage.stored.storageBytes
        let records = usage.stored.records
        let transfer = usage.transferThisMonth
        let preset = limits.preset

        var context: [String: Any] = [
            "bar": location.bar(.usage), "environment": location.environment.rawValue, "timeZone": zone.identifier,
            "rate": Self.rate(rate), "burst": Formatting.count(burst),
            "presetName": preset.map { $0 == "cloudkit" ? "CloudKit's public database" : "the standard limits" } ?? "",
            "hasPreset": preset != nil,
            "storageUsed": Formatting.bytes(stored), "records": Formatting.count(records),
            "recordBytes": Formatting.bytes(EnvironmentUsage.storageBytes(ofRecordBytes: usage.stored.recordBytes)),
            "historyBytes": Formatting.bytes(usage.stored.historyBytes),
            "storageLimit": storageLimit.map(Formatting.bytes) ?? "", "hasStorageLimit": storageLimit != nil,
            "storagePercent": storageLimit.map { Self.percent(stored, of: $0) } ?? "",
            "storageMeter": min(stored, storageLimit ?? 0), "storageMax": storageLimit ?? 0,
            "transferUsed": Formatting.bytes(transfer), "monthStart": String(Formatting.time(usage.monthStart, in: zone).prefix(10)),
            "transferLimit": transferLimit.map(Formatting.bytes) ?? "", "hasTransferLimit": transferLimit != nil,
            "transferPercent": transferLimit.map { Self.percent(transfer, of: $0) } ?? "",
            "transferMeter": min(transfer, transferLimit ?? 0), "transferMax": transferLimit ?? 0,
            "limitsAction": location.path(.usage, "/limits", query: [("range", range.rawValue)]),
            "presets": [("", "Keep the values below"), ("standard", "Standard: 5,000 a second"), ("cloudkit", "CloudKit: 40 a second")].map
            {
                ["value": $0.0, "label": $0.1]
            },
            "rateValue": Self.rate(rate).replacingOccurrences(of: ",", with: ""), "burstValue": String(burst),
            "storageValue": storageLimit.map(String.init) ?? "", "transferValue": transferLimit.map(String.init) ?? "",
            "ranges": UsageRange.allCases.map { option -> [String: Any] in
                [
                    "label": Self.rangeLabel(option), "url": location.path(.usage, query: [("range", option.rawValue)]),
                    "current": option == range,
                ]
            },
            "rangeLabel": Self.rangeLabel(range).lowercased(),
        ]
        context["storageDefinition"] = Self.storageDefinition
        context["hasTraffic"] = summary.lastActivity != nil
        context["hasCalls"] = summary.totals.requests > 0
        context["totals"] = totals(summary, rate: rate)
        context["operations"] = summary.operations.map { operation -> [String: Any] in
            [
                "operation": operation.operation, "requests": Formatting.count(operation.requests),
                "errors": Formatting.count(operation.errors), "partialFailures": Formatting.count(operation.partialFailures),
                "errorRate": Self.share(operation.errors + operation.partialFailures, of: operation.requests),
                "p50": operation.p50Microseconds.map(Formatting.milliseconds) ?? "—",
                "p99": operation.p99Microseconds.map(Formatting.milliseconds) ?? "—",
                "hasFailures": operation.errors + operation.partialFailures > 0,
            ]
        }
        context["hasOperations"] = !summary.operations.isEmpty
        context["sampled"] = summary.callsRead < summary.totals.requests ? Formatting.count(Int64(summary.callsRead)) : ""
        let perBucket = Int64((rate * 60 * Double(range.bucketMinutes)).rounded())
        let shown = Self.fitted(usage.points)
        context["fittedFrom"] = shown.count < usage.points.count ? Formatting.time(shown[0].start, in: zone) : ""
        context["charts"] = charts(shown, range: range, zone: zone, storageLimit: storageLimit, requestLimit: perBucket)
        return .page(Page("console.usage", context: context))
    }

    /// The range's figures beside the charts: requests, error rate, answer times, the busiest
    /// second against the limit, and bandwidth.
    private func totals(_ summary: UsageSummary, rate: Double) -> [[String: String]] {
        let totals = summary.totals
        let peak = summary.peakPerSecond.map { peak in
            "\(Formatting.count(peak)) a second, \(Self.share(peak, of: max(1, Int64(rate.rounded(.up))))) of the limit of \(Self.rate(rate))"
        }
        return [
            ["label": "Requests", "value": Formatting.count(totals.requests)],
            ["label": "Errors", "value": "\(Formatting.count(totals.errors)) (\(Self.share(totals.errors, of: totals.requests)))"],
            [
                "label": "Answer time",
                "value": totals.p50Microseconds.map {
                    "p50 \(Formatting.milliseconds($0)), p99 \(Formatting.milliseconds(totals.p99Microseconds ?? $0))"
                }
                    ?? "—",
            ],
            ["label": "Busiest second", "value": peak ?? "—"],
            ["label": "Bandwidth", "value": "\(Formatting.bytes(totals.bytesIn)) in, \(Formatting.bytes(totals.bytesOut)) out"],
        ]
    }

    /// The buckets the charts show: from shortly before the range's first call, so that calls
    /// of the last minutes are not squeezed against the right edge, and at least
    /// ``minimumBucketsShown`` of them; all of them when there were no calls.
    static func fitted(_ points: [UsageView.Point]) -> [UsageView.Point] {
        guard let first = points.firstIndex(where: { $0.requests > 0 }) else { return points }
        let start = max(0, min(first - 2, points.count - minimumBucketsShown))
        return Array(points[start...])
    }

    /// The fewest buckets a chart fitted to the activity shows.
    static let minimumBucketsShown = 12

    private func charts(
        _ points: [UsageView.Point], range: UsageRange, zone: TimeZone, storageLimit: Int64?, requestLimit: Int64
    ) -> [[String: Any]] {
        func values(_ value: (UsageView.Point) -> Int64?) -> [Int64?] { points.map(value) }
        let starts = points.map(\.start)
        let label: (Int64) -> String = { time in
            let text = Formatting.time(time, in: zone)
            // `2026-11-24 14:05:09`: the hour and minute, and for a week the day too.
            let start = text.index(text.startIndex, offsetBy: range == .week ? 5 : 11)
            return String(text[start..<text.index(text.startIndex, offsetBy: 16)])
        }
        let per = range == .hour ? "minute" : range == .day ? "15 minutes" : "hour"
        let count: (Int64) -> String = Formatting.count
        let charts = [
            UsageChart(
                id: "requests", title: "Requests per \(per)",
                series: [
                    .init(name: "Requests", style: "series-a", values: values(\.requests)),
                    .init(name: "Errors", style: "series-error", values: values(\.errors)),
                ],
                format: count, limit: requestLimit, starts: starts, timeLabel: label),
            UsageChart(
                id: "latency", title: "Answer time",
                series: [
                    .init(name: "p50", style: "series-a", values: values(\.p50Microseconds)),
                    .init(name: "p99", style: "series-b", values: values(\.p99Microseconds)),
                ],
                format: Formatting.milliseconds, starts: starts, timeLabel: label),
            UsageChart(
                id: "bandwidth", title: "Bandwidth per \(per)",
                series: [
                    .init(name: "In", style: "series-a", values: values(\.bytesIn)),
                    .init(name: "Out", style: "series-b", values: values(\.bytesOut)),
                ],
                format: Formatting.bytes, starts: starts, timeLabel: label),
            UsageChart(
                id: "storage", title: "Storage",
                series: [.init(name: "Records", style: "series-a", values: values(\.storageBytes))],
                format: Formatting.bytes, limit: storageLimit, starts: starts, timeLabel: label),
        ]
        return charts.map(\.context)
    }

    private func saveLimits(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let back = location.path(.usage, query: [("range", request.query("range"))])
        var changes: JSONObject = [:]
        for key in ["preset", "requestsPerSecond", "burst", "storageBytes", "transferBytesPerMonth"] {
            if let value = request.field(key) { changes[key] = .string(value) }
        }
        // A preset replaces the rate and burst typed below it, which still show the old ones.
        if request.field("preset")?.isEmpty == false {
            changes["requestsPerSecond"] = nil
            changes["burst"] = nil
        }
        return try console.attempt(back: back) {
            // A missing container is reported before a value that cannot be a limit, as the action did.
            let container = try actions.existingContainer(try location.identifier)
            _ = try actions.setLimits(
                LimitsChange(json: .object(changes)), of: container, environment: location.environment, as: request.identity)
            return "The limits of \(location.environment.rawValue) were saved; they apply to the next request."
        }
    }

    private static func rate(_ perSecond: Double) -> String {
        perSecond == perSecond.rounded() ? Formatting.count(Int64(perSecond)) : String(perSecond)
    }

    /// A share of calls in percent, with two decimals below one percent so that a few errors
    /// among many calls do not read as none.
    private static func share(_ part: Int64, of whole: Int64) -> String {
        guard whole > 0 else { return "0 %" }
        let share = 100 * Double(part) / Double(whole)
        return String(format: share > 0 && share < 1 ? "%.2f %%" : "%.0f %%", share)
    }

    private static func percent(_ used: Int64, of limit: Int64) -> String {
        guard limit > 0 else { return "100 %" }
        return String(format: "%.0f %%", min(999, 100 * Double(used) / Double(limit)))
    }

    private static func rangeLabel(_ range: UsageRange) -> String {
        switch range {
        case .hour: "Last hour"
        case .day: "Last day"
        case .week: "Last week"
        }
    }
}
