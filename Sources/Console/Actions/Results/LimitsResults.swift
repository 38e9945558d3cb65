import CloudKitWire
import CloudStore

/// An environment's limits, with the presets an operator may pick.
public struct LimitsView: ManagementResult, Equatable {
    /// A preset.
    public struct Preset: Sendable, Equatable {
        /// Its name (`standard`, `cloudkit`).
        public var name: String
        /// Its sustained requests a second.
        public var requestsPerSecond: Double
        /// Its burst.
        public var burst: Int64
    }

    /// Requests a second, sustained.
    public var requestsPerSecond: Double
    /// Requests at once after a quiet time.
    public var burst: Int64
    /// Bytes of records the environment may hold; `nil` for no limit.
    public var storageBytes: Int64?
    /// Bytes of requests and answers a month; `nil` for no limit.
    public var transferBytesPerMonth: Int64?
    /// The preset the limits are, when they are one.
    public var preset: String?
    /// The presets.
    public var presets: [Preset]

    init(_ limits: EnvironmentLimits) {
        requestsPerSecond = limits.requestsPerSecond
        burst = Int64(limits.burst)
        storageBytes = limits.storageBytes
        transferBytesPerMonth = limits.transferBytesPerMonth
        preset = limits.presetName
        presets = EnvironmentLimits.presets.map {
            Preset(name: $0.name, requestsPerSecond: $0.limits.requestsPerSecond, burst: Int64($0.limits.burst))
        }
    }

    public var json: JSONValue {
        [
            "requestsPerSecond": .double(requestsPerSecond), "burst": .integer(burst),
            "storageBytes": storageBytes.map(JSONValue.integer) ?? .null,
            "transferBytesPerMonth": transferBytesPerMonth.map(JSONValue.integer) ?? .null,
            "preset": ManagementActions.optional(preset),
            "presets": .array(
                presets.map { preset in
                    ["name": .string(preset.name), "requestsPerSecond": .double(preset.requestsPerSecond), "burst": .integer(preset.burst)]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        requestsPerSecond = try fields.double("requestsPerSecond")
        burst = try fields.int64("burst")
        storageBytes = try fields.optionalInt64("storageBytes")
        transferBytesPerMonth = try fields.optionalInt64("transferBytesPerMonth")
        preset = try fields.optionalString("preset")
        presets = try fields.array("presets") { value in
            let preset = try AnswerFields(value)
            return Preset(
                name: try preset.string("name"), requestsPerSecond: try preset.double("requestsPerSecond"), burst: try preset.int64("burst")
            )
        }
    }
}

/// An environment's usage against its limits and over a span of time.
public struct UsageView: ManagementResult, Equatable {
    /// What the environment served in one bucket of the span: the store's own figures.
    public typealias Point = UsagePoint

    /// The span: `hour`, `day` or `week`.
    public var range: String
    /// The length of a bucket, in seconds.
    public var bucketSeconds: Int64
    /// The limits.
    public var limits: LimitsView
    /// What the environment holds now.
    public var stored: ContainerView.Figures
    /// Bytes transferred this month.
    public var transferThisMonth: Int64
    /// When this month began, in milliseconds since 1970.
    public var monthStart: Int64
    /// The buckets, oldest first.
    public var points: [Point]

    init(_ report: UsageReport, range: UsageRange) {
        self.range = range.rawValue
        bucketSeconds = range.bucketMinutes * 60
        limits = LimitsView(report.limits)
        stored = ContainerView.Figures(report.stored)
        transferThisMonth = report.transferThisMonth
        monthStart = report.monthStart
        points = report.points
    }

    public var json: JSONValue {
        func optional(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
        return [
            "range": .string(range), "bucketSeconds": .integer(bucketSeconds), "limits": limits.json,
            "stored": stored.json(withHistory: true),
            "transferThisMonth": .integer(transferThisMonth), "monthStart": .integer(monthStart),
            "points": .array(
                points.map { point in
                    [
                        "start": .integer(point.start), "requests": .integer(point.requests), "errors": .integer(point.errors),
                        "bytesIn": .integer(point.bytesIn), "bytesOut": .integer(point.bytesOut),
                        "p50Microseconds": optional(point.p50Microseconds),
                        "p99Microseconds": optional(point.p99Microseconds), "storageBytes": optional(point.storageBytes),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        range = try fields.string("range")
        bucketSeconds = try fields.int64("bucketSeconds")
        limits = try LimitsView(json: try fields.value("limits"))
        stored = try ContainerView.Figures(json: try fields.value("stored"))
        transferThisMonth = try fields.int64("transferThisMonth")
        monthStart = try fields.int64("monthStart")
        points = try fields.array("points") { value in
            let point = try AnswerFields(value)
            return Point(
                start: try point.int64("start"), requests: try point.int64("requests"), errors: try point.int64("errors"),
                bytesIn: try point.int64("bytesIn"), bytesOut: try point.int64("bytesOut"),
                p50Microseconds: try point.optionalInt64("p50Microseconds"),
                p99Microseconds: try point.optionalInt64("p99Microseconds"), storageBytes: try point.optionalInt64("storageBytes"))
        }
    }
}
