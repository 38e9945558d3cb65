import Synchronization

/// The request counters of a running server: per event loop, a row per operation of
/// status-class counts, latency-bucket counts and the latency's sum, in memory allocated once.
///
/// `@unchecked Sendable`: the memory is reached only through `Atomic`s; each slab is written
/// by one loop's thread alone and read by any thread, and `slabs` is guarded by its mutex.
final class RequestCounters: @unchecked Sendable {
    /// The operations, by row.
    let operations: [RouteOperation]
    /// Words per row: five status classes, a bucket per bound and one beyond, the sum.
    let stride: Int
    /// The buckets' bounds in nanoseconds, shared by the slabs.
    private let bounds: UnsafeMutablePointer<UInt64>
    private let slabs = Mutex<[RequestCounterSlab]>([])

    static let statusClasses = 5

    init(operations: [RouteOperation]) {
        self.operations = operations
        let boundCount = HTTPMetrics.latencyBounds.count
        stride = Self.statusClasses + boundCount + 2
        bounds = .allocate(capacity: boundCount)
        for (index, seconds) in HTTPMetrics.latencyBounds.enumerated() { (bounds + index).initialize(to: UInt64(seconds * 1e9)) }
    }

    deinit {
        bounds.deallocate()
        for slab in slabs.withLock({ $0 }) {
            slab.base.deinitialize(count: operations.count * stride)
            slab.base.deallocate()
        }
    }

    /// A zeroed slab for one event loop, which alone records into it.
    func makeSlab() -> RequestCounterSlab {
        let words = operations.count * stride
        let slab = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: words)
        for index in 0..<words { (slab + index).initialize(to: Atomic(0)) }
        let made = RequestCounterSlab(
            base: slab, stride: stride, bounds: UnsafePointer(bounds), boundCount: HTTPMetrics.latencyBounds.count,
            rows: operations.count)
        slabs.withLock { $0.append(made) }
        return made
    }

    /// Every operation's counts, summed over the slabs.
    func snapshot() -> [HTTPMetricsSnapshot.Operation] {
        let words = operations.count * stride
        var sums = [UInt64](repeating: 0, count: words)
        slabs.withLock { slabs in
            for slab in slabs {
                for index in 0..<words { sums[index] &+= slab.base[index].load(ordering: .relaxed) }
            }
        }
        let boundCount = HTTPMetrics.latencyBounds.count
        return operations.enumerated().map { row, operation in
            let start = row * stride
            var cumulative: [UInt64] = []
            var running: UInt64 = 0
            for bucket in 0..<boundCount {
                running &+= sums[start + Self.statusClasses + bucket]
                cumulative.append(running)
            }
            return HTTPMetricsSnapshot.Operation(
                operation: operation, responsesByStatusClass: Array(sums[start..<start + Self.statusClasses]),
                latencyBuckets: cumulative, latencySeconds: Double(sums[start + stride - 1]) / 1e9)
        }
    }
}

/// One event loop's rows of a ``RequestCounters``: written by that loop alone, so a count is a
/// relaxed load and store (no read-modify-write), which any thread may read meanwhile.
///
/// `@unchecked Sendable`: its memory is reached only through `Atomic`s, written by one thread.
struct RequestCounterSlab: @unchecked Sendable {
    let base: UnsafeMutablePointer<Atomic<UInt64>>
    let stride: Int
    let bounds: UnsafePointer<UInt64>
    let boundCount: Int
    let rows: Int

    /// Counts one answered request of the operation of row `operation`.
    @inline(__always)
    func record(operation: Int, status: Int, nanoseconds: UInt64) {
        guard operation >= 0, operation < rows else { return }
        let row = base + operation * stride
        let statusClass = min(max(status / 100, 1), RequestCounters.statusClasses) - 1
        Self.add(1, to: row + statusClass)
        var bucket = 0
        while bucket < boundCount, nanoseconds > bounds[bucket] { bucket += 1 }
        Self.add(1, to: row + RequestCounters.statusClasses + bucket)
        Self.add(nanoseconds, to: row + stride - 1)
    }

    @inline(__always)
    private static func add(_ value: UInt64, to counter: UnsafeMutablePointer<Atomic<UInt64>>) {
        counter.pointee.store(counter.pointee.load(ordering: .relaxed) &+ value, ordering: .relaxed)
    }
}
