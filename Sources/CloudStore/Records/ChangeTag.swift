import Synchronization

/// Record change tags: short opaque strings, as CloudKit's (`"3n6wq1m2k8g7"`), new for every save
/// of a record.
///
/// A tag is not the save's change-log sequence: on PostgreSQL a save learns its sequence only as
/// its transaction's last statement, after the record holding the tag was written. A counter
/// makes tags unique within the process; the random key it is mixed with makes two processes'
/// tags differ, and keeps tags from telling how many saves there were.
enum ChangeTag {
    private static let key = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// A tag no earlier save in this process got.
    static func make() -> String {
        String(mix(key &+ counter.add(1, ordering: .relaxed).newValue), radix: 36)
    }

    /// SplitMix64's finaliser: a bijection on 64 bits, so distinct counts give distinct tags.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
