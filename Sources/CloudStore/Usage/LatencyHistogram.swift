import Foundation

/// Durations counted in buckets four to each doubling (about 19 % wide), from 1 µs to over an
/// hour: small enough to keep one per environment and minute, mergeable over any span, and
/// precise enough for a p50 or a p99 on a chart.
struct LatencyHistogram: Hashable, Sendable {
    /// Buckets per doubling of the duration.
    private static let perDoubling = 4.0
    private static let bucketCount = 128
    private(set) var counts = [Int64](repeating: 0, count: bucketCount)

    /// The number of durations counted.
    var total: Int64 { counts.reduce(0, +) }

    /// Counts a duration of `microseconds`.
    mutating func add(_ microseconds: Int64) {
        counts[Self.bucket(of: microseconds)] += 1
    }

    /// Adds another histogram's counts.
    mutating func merge(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }

    /// The duration below which `fraction` (0.5 for the median) of the counted ones fall, as the
    /// middle of its bucket; `nil` when nothing was counted.
    func percentile(_ fraction: Double) -> Int64? {
        let total = total
        guard total > 0 else { return nil }
        let rank = max(1, Int64((Double(total) * fraction).rounded(.up)))
        var seen: Int64 = 0
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= rank { return Self.middle(of: index) }
        }
        return Self.middle(of: counts.count - 1)
    }

    private static func bucket(of microseconds: Int64) -> Int {
        guard microseconds > 1 else { return 0 }
        return min(bucketCount - 1, Int(log2(Double(microseconds)) * perDoubling) + 1)
    }

    private static func middle(of bucket: Int) -> Int64 {
        guard bucket > 0 else { return 1 }
        return Int64(pow(2, (Double(bucket) - 0.5) / perDoubling).rounded())
    }

    /// The counts as pairs of bucket and count, leaving out empty buckets: a minute's requests
    /// fill a handful.
    func encoded() -> [UInt8] {
        var writer = BinaryWriter()
        for (index, count) in counts.enumerated() where count > 0 {
            writer.varint(UInt64(index))
            writer.varint(UInt64(count))
        }
        return writer.bytes
    }

    /// Reads what ``encoded()`` wrote; damaged bytes read as what could be read of them.
    init(encoded bytes: [UInt8]) {
        var reader = BinaryReader(bytes: bytes, damaged: .internalError("A latency histogram is damaged"))
        while !reader.isAtEnd {
            guard let index = try? reader.varint(), let count = try? reader.varint(), index < UInt64(Self.bucketCount) else { break }
            counts[Int(index)] += Int64(clamping: count)
        }
    }

    /// An empty histogram.
    init() {}
}
