import CloudKitWire
import CloudStore

/// The schema guard's answer: what production refused for want of a record type, field or index
/// development has, each gap with its refused calls and the deployment changes that fill it.
public struct SchemaGuardView: ManagementResult, Equatable {
    /// One gap and the calls it refused.
    public struct Finding: Sendable, Equatable {
        /// The gap, as one word (`field:Note:title`), for a pre-filled deployment.
        public var gap: String
        /// The gap in words: `field title of type Note`.
        public var description: String
        /// How many calls it refused.
        public var refusals: Int
        /// The request ids of the latest of them, newest first.
        public var latestRequestIDs: [String]
        /// When the latest was refused, in milliseconds since 1970.
        public var latest: Int64
        /// The deployment changes that fill the gap, in words.
        public var changes: [String]
    }

    /// The gaps, the one that refused most first.
    public var findings: [Finding]
    /// Calls refused for want of what development lacks too.
    public var refusalsNoDeploymentCures: Int
    /// From when the request log was read, in milliseconds since 1970.
    public var since: Int64

    init(_ guarded: SchemaGuard) {
        findings = guarded.findings.map { finding in
            Finding(
                gap: finding.gap.packed, description: finding.gap.description, refusals: finding.refusals,
                latestRequestIDs: finding.latestRequestIDs, latest: finding.latest, changes: finding.changes.map(\.description))
        }
        refusalsNoDeploymentCures = guarded.refusalsNoDeploymentCures
        since = guarded.since
    }

    /// Every call refused for want of what a deployment would add.
    public var refusals: Int { findings.reduce(0) { $0 + $1.refusals } }

    public var json: JSONValue {
        [
            "since": .integer(since), "refusalsNoDeploymentCures": .integer(Int64(refusalsNoDeploymentCures)),
            "findings": .array(
                findings.map { finding in
                    [
                        "gap": .string(finding.gap), "description": .string(finding.description),
                        "refusals": .integer(Int64(finding.refusals)),
                        "latestRequestIDs": .array(finding.latestRequestIDs.map(JSONValue.string)), "latest": .integer(finding.latest),
                        "changes": .array(finding.changes.map(JSONValue.string)),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        since = try fields.int64("since")
        refusalsNoDeploymentCures = Int(try fields.int64("refusalsNoDeploymentCures"))
        findings = try fields.array("findings") { value in
            let finding = try AnswerFields(value)
            return Finding(
                gap: try finding.string("gap"), description: try finding.string("description"),
                refusals: Int(try finding.int64("refusals")),
                latestRequestIDs: try finding.strings("latestRequestIDs"), latest: try finding.int64("latest"),
                changes: try finding.strings("changes"))
        }
    }
}
