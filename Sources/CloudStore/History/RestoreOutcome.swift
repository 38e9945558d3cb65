/// What writing kept versions back did, or would do: the records created, overwritten and
/// deleted as new changes, with a sample of their names.
public struct RestoreOutcome: Hashable, Sendable {
    /// Records written back that did not exist: deletions undone.
    public var restored = 0
    /// Records overwritten with an older version: updates undone.
    public var reverted = 0
    /// Records deleted because they did not exist then: creations undone.
    public var removed = 0
    /// Zones created again.
    public var zonesRestored: [String] = []
    /// Up to ``sampleSize`` of the records changed, by zone and name.
    public var sample: [String] = []
    /// Whether nothing was written: a dry run.
    public var dryRun = false

    /// How many record names a sample holds at most.
    public static let sampleSize = 20

    /// Every record changed.
    public var total: Int { restored + reverted + removed }

    /// Notes a record changed.
    mutating func note(_ zoneName: String, _ recordName: String) {
        if sample.count < Self.sampleSize { sample.append("\(zoneName)/\(recordName)") }
    }
}
