import CLinux
import Glibc
import Synchronization

/// Identifies a connection on its event loop: the descriptor plus a serial number, so a message
/// for a connection that has closed is never delivered to a later one on the same descriptor.
struct ConnectionID: Hashable, Sendable {
    var descriptor: Int32
    var serial: UInt32
}

/// Work handed to an event loop by other threads.
enum LoopMessage: Sendable {
    /// The response to the connection's current request (from a worker or a `PendingResponse`).
    case response(ConnectionID, HTTPResponse)
    /// Body bytes of the connection's current streamed response.
    case streamData(ConnectionID, [UInt8])
    /// The end of the connection's current streamed response.
    case streamEnd(ConnectionID)
    /// Stop accepting and close connections once their current exchange is over.
    case shutdown(deadline: UInt64)
}

/// The thread-safe side of an event loop: a message queue and the eventfd that wakes the loop.
final class LoopMailbox: Sendable {
    /// The eventfd the loop polls.
    let wakeDescriptor: Int32
    private let queue = Mutex<[LoopMessage]>([])

    init() throws(HTTPServerError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw HTTPServerError.system("eventfd", errno) }
        wakeDescriptor = fd
    }

    deinit { close(wakeDescriptor) }

    /// Queues a message and wakes the loop if the queue was empty.
    func post(_ message: LoopMessage) {
        let wasEmpty = queue.withLock { queue in
            let wasEmpty = queue.isEmpty
            queue.append(message)
            return wasEmpty
        }
        // The loop reads the eventfd before draining, so a message appended after a drain
        // always finds the queue empty and writes the eventfd again.
        if wasEmpty { _ = eventfd_write(wakeDescriptor, 1) }
    }

    /// Takes every queued message (called by the loop after reading the eventfd).
    func drain(into buffer: inout [LoopMessage]) {
        queue.withLock { queue in swap(&queue, &buffer) }
    }
}
