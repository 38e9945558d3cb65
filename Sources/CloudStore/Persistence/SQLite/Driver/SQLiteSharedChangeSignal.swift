import CLinux
import Foundation

/// A counter beside a database file, mapped into the memory of every process that opens the
/// database and moved after each commit that changes what caches hold: a running server learns
/// of a change made by another process (the command line revoking a token) by reading one word
/// of memory, without a system call or a read of the database.
///
/// The signal only says "look again"; the database stays the truth. It can be missed (a process
/// that dies between its commit and the signal), so readers also look again after a while.
final class SQLiteSharedChangeSignal: @unchecked Sendable {
    // @unchecked: `counter` points into a shared mapping that lives until deinit and is read and
    // written only through the C atomics, which are safe from any thread and any process.
    private let counter: UnsafeMutablePointer<UInt64>
    private static let size = 4096

    /// Maps the signal file at `path`, creating it (zeroed) when missing; `nil` when it cannot be
    /// made (a read-only directory), in which case readers simply always look again.
    init?(path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        // A new file is grown to one page of zeros; growing an existing one again changes nothing.
        if info.st_size < Self.size, ftruncate(descriptor, off_t(Self.size)) != 0 { return nil }
        let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        counter = mapped.bindMemory(to: UInt64.self, capacity: 1)
    }

    deinit {
        munmap(counter, Self.size)
    }

    /// The number of changes signalled so far, by any process.
    var value: UInt64 {
        UInt64(CLinux_shared_counter_load(UnsafeMutableRawPointer(counter).assumingMemoryBound(to: CUnsignedLongLong.self)))
    }

    /// How long what a reader read is trusted without a signal: a process that dies between its
    /// commit and its signal delays what it changed by at most this.
    static let recheckNanoseconds: UInt64 = 1_000_000_000

    /// What a reader knew when it read: the signal's value, taken before the read began, and
    /// when to read again anyway.
    struct Mark: Sendable {
        let value: UInt64
        let recheckAt: UInt64
    }

    /// A mark for a read about to begin: a change signalled after this is seen by `isCurrent`.
    func mark() -> Mark {
        Mark(value: value, recheckAt: CLinux_monotonic_ns() + Self.recheckNanoseconds)
    }

    /// Whether what was read under `mark` is still current: nothing signalled since, and not
    /// trusted too long.
    func isCurrent(_ mark: Mark) -> Bool {
        mark.value == value && CLinux_monotonic_ns() < mark.recheckAt
    }

    /// Signals a change: called after the change committed, so whoever sees the new value reads it.
    func signal() {
        CLinux_shared_counter_increment(UnsafeMutableRawPointer(counter).assumingMemoryBound(to: CUnsignedLongLong.self))
    }
}
