/// What production refused for want of a record type, field or index that development's schema
/// has: each gap with how many calls it refused and the latest of them, and the deployment
/// changes that fill it. Read from the request log, so it covers every process's calls.
public struct SchemaGuard: Hashable, Sendable {
    /// One gap and the calls it refused.
    public struct Finding: Hashable, Sendable {
        /// What production lacks.
        public var gap: SchemaGap
        /// How many calls it refused in the span read.
        public var refusals: Int
        /// The request ids of the latest of them, newest first.
        public var latestRequestIDs: [String]
        /// When the latest was refused, in milliseconds since 1970.
        public var latest: Int64
        /// The changes of a deployment that fill the gap.
        public var changes: [SchemaDifference.Change]
    }

    /// The gaps development fills, the one that refused most first.
    public var findings: [Finding]
    /// Calls refused for want of what development lacks too: the app asks for something no
    /// schema has, which a deployment would not cure.
    public var refusalsNoDeploymentCures: Int
    /// From when the request log was read, in milliseconds since 1970.
    public var since: Int64

    /// How many request ids a finding keeps.
    static let latestKept = 5

    /// The guard of the refused calls `entries` (each with its ``RequestLogEntry/schemaGap``),
    /// against the two schemas now: gaps production has filled since are left out.
    init(entries: [RequestLogEntry], production: Schema, development: Schema, difference: SchemaDifference, since: Int64) {
        var byGap: [SchemaGap: Finding] = [:]
        var order: [SchemaGap] = []
        var uncured = 0
        // Entries come newest first.
        for entry in entries {
            guard let gap = entry.schemaGap, !gap.isFilled(by: production) else { continue }
            guard gap.isFilled(by: development) else {
                uncured += 1
                continue
            }
            if var finding = byGap[gap] {
                finding.refusals += 1
                if finding.latestRequestIDs.count < Self.latestKept { finding.latestRequestIDs.append(entry.requestID) }
                byGap[gap] = finding
            } else {
                order.append(gap)
                byGap[gap] = Finding(
                    gap: gap, refusals: 1, latestRequestIDs: [entry.requestID], latest: entry.time, changes: gap.changes(in: difference))
            }
        }
        findings = order.compactMap { byGap[$0] }.sorted { $0.refusals != $1.refusals ? $0.refusals > $1.refusals : $0.latest > $1.latest }
        refusalsNoDeploymentCures = uncured
        self.since = since
    }

    /// Every gap found.
    public var gaps: [SchemaGap] { findings.map(\.gap) }

    /// The refused calls a deployment change would have let through.
    public func refusals(curedBy change: SchemaDifference.Change) -> Int {
        findings.filter { $0.changes.contains(change) }.reduce(0) { $0 + $1.refusals }
    }
}
