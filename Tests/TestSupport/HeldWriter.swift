import CloudStore
import Foundation

/// A writer kept busy by a job of its own until ``release()``: writes handed in meanwhile wait
/// in its queue, and form its next group together.
public final class HeldWriter: Sendable {
    private let released = DispatchSemaphore(value: 0)

    /// Starts `write` on a thread of its own and returns once its job runs. `write` must call
    /// the closure it is given inside one write job.
    public init(_ write: @escaping @Sendable (_ hold: @escaping @Sendable () -> Void) -> Void) {
        let holding = DispatchSemaphore(value: 0)
        let released = released
        Thread {
            write {
                holding.signal()
                released.wait()
            }
        }.start()
        holding.wait()
    }

    /// Lets the writer go on.
    public func release() { released.signal() }
}

extension CloudStore {
    /// Caps the records `container` holds in development at what it holds now plus `headroom`
    /// bytes, with request limits no test reaches; returns what it held.
    @discardableResult
    public func limitStorage(of container: ContainerIdentifier, headroom: Int64) throws -> Int64 {
        let held = try usage(of: container)[.development]?.recordBytes ?? 0
        try setLimits(
            EnvironmentLimits(requestsPerSecond: 1_000, burst: 1_000, storageBytes: held + headroom), of: container, .development)
        return held
    }
}
