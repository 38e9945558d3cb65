#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value read far more often than written, guarded by a POSIX reader-writer lock: readers
/// proceed side by side and never wait for each other, only for a writer. Worth it for the
/// registries every request reads (open environments, cached credentials), where a mutex makes
/// worker threads queue behind one another.
///
/// `@unchecked Sendable` is sound because `value` is only touched while the lock is held: shared
/// for ``read(_:)``, exclusive for ``write(_:)``; and the lock lives at a stable heap address
/// from `init` to `deinit`. `Value` must be `Sendable` itself: readers on several threads hold
/// it at once, and values read out leave the lock.
final class ReadWriteLock<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init(_ value: Value) {
        self.value = value
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Reads under the shared lock.
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Changes under the exclusive lock.
    func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
