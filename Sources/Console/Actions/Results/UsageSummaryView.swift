import CloudKitWire
import CloudStore

/// An environment's calls over a usage range in figures, with the breakdown by operation: the
/// store's ``UsageSummary``, with the range it covers, the rate limit its busiest second is
/// measured against, and the JSON the management API sends.
public struct UsageSummaryView: ManagementResult, Equatable {
    /// The span: `hour`, `day` or `week`.
    public var range: String
    /// The figures.
    public var summary: UsageSummary
    /// The environment's limit of requests a second, sustained.
    public var requestsPerSecondLimit: Double

    init(_ summary: UsageSummary, range: UsageRange, limits: EnvironmentLimits) {
        self.range = range.rawValue
        self.summary = summary
        requestsPerSecondLimit = limits.requestsPerSecond
    }

    /// The share of the range's calls answered with a status of 400 or more, from 0 to 1.
    public var errorRate: Double {
        summary.totals.requests > 0 ? Double(summary.totals.errors) / Double(summary.totals.requests) : 0
    }

    /// The busiest second's calls as a share of the limit (1 is the limit); `nil` without calls.
    public var peakShareOfLimit: Double? {
        summary.peakPerSecond.map { Double($0) / max(requestsPerSecondLimit, 1) }
    }

    public var json: JSONValue {
        func optional(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
        return [
            "range": .string(range), "start": .integer(summary.totals.start), "requests": .integer(summary.totals.requests),
            "errors": .integer(summary.totals.errors), "errorRate": .double(errorRate), "bytesIn": .integer(summary.totals.bytesIn),
            "bytesOut": .integer(summary.totals.bytesOut), "p50Microseconds": optional(summary.totals.p50Microseconds),
            "p99Microseconds": optional(summary.totals.p99Microseconds),
            "peakPerSecond": optional(summary.peakPerSecond), "requestsPerSecondLimit": .double(requestsPerSecondLimit),
            "callsRead": .integer(Int64(summary.callsRead)), "lastActivity": optional(summary.lastActivity),
            "operations": .array(
                summary.operations.map { operation in
                    [
                        "operation": .string(operation.operation), "requests": .integer(operation.requests),
                        "errors": .integer(operation.errors), "partialFailures": .integer(operation.partialFailures),
                        "p50Microseconds": optional(operation.p50Microseconds), "p99Microseconds": optional(operation.p99Microseconds),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        range = try fields.string("range")
        requestsPerSecondLimit = try fields.double("requestsPerSecondLimit")
        summary = UsageSummary(
            totals: UsagePoint(
                start: try fields.int64("start"), requests: try fields.int64("requests"), errors: try fields.int64("errors"),
                bytesIn: try fields.int64("bytesIn"), bytesOut: try fields.int64("bytesOut"),
                p50Microseconds: try fields.optionalInt64("p50Microseconds"), p99Microseconds: try fields.optionalInt64("p99Microseconds")),
            peakPerSecond: try fields.optionalInt64("peakPerSecond"),
            operations: try fields.array("operations") { value in
                let operation = try AnswerFields(value)
                return OperationUsage(
                    operation: try operation.string("operation"), requests: try operation.int64("requests"),
                    errors: try operation.int64("errors"), partialFailures: try operation.int64("partialFailures"),
                    p50Microseconds: try operation.optionalInt64("p50Microseconds"),
                    p99Microseconds: try operation.optionalInt64("p99Microseconds"))
            },
            callsRead: Int(try fields.int64("callsRead")), lastActivity: try fields.optionalInt64("lastActivity"))
    }
}
