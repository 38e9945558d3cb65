#if canImport(Glibc)
    import Glibc
#endif

/// Picks one of several copies of a lock-guarded thing by the calling thread, so that request
/// threads mostly meet only themselves at a lock: one shared lock made every thread queue (and
/// sleep, and be woken) behind the others.
enum ThreadShard {
    /// The calling thread's shard among `count`.
    static func index(of count: Int) -> Int {
        // Thread handles are addresses: drop the low bits that alignment makes equal.
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        return Int((thread >> 12) % UInt(count))
    }
}
