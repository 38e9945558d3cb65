import Dispatch
import Synchronization

/// Starts work that reports through a completion, and waits in the calling thread until it has:
/// the blocking form of an operation built on completions, with one implementation.
/// - Returns: what the work reported.
/// - Throws: what the work reported failing with.
func waitForCompletion<T: Sendable>(_ start: (_ completion: @escaping @Sendable (Result<T, any Error>) -> Void) -> Void) throws -> T {
    let answer = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { result in
        answer.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try answer.withLock { $0! }.get()
}
