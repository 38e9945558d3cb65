import Dispatch
import Synchronization

/// The shared state behind a streamed response: bytes produced by any thread, delivered to
/// the connection's event loop once the response has been bound to it.
final class StreamChannel: Sendable {
    private struct State {
        var target: (mailbox: LoopMailbox, connection: ConnectionID)?
        var buffered: [UInt8] = []
        var finished = false
        var clientGone = false
        var inFlight = 0
        var producerWaiting = false
        var onClose: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let resume = DispatchSemaphore(value: 0)
    /// Above this many undelivered bytes a blocking producer waits.
    let highWaterMark: Int

    init(highWaterMark: Int = 1 << 20) {
        self.highWaterMark = highWaterMark
    }

    /// Queues bytes; `false` if the stream is finished or the client went away.
    /// With `blocking`, waits while too many bytes are undelivered (never on an event loop).
    func write(_ bytes: [UInt8], blocking: Bool) -> Bool {
        guard !bytes.isEmpty else { return isOpen }
        var mustWait = false
        let accepted = state.withLock { state -> Bool in
            guard !state.finished, !state.clientGone else { return false }
            if let target = state.target {
                // Posting under the lock keeps the order of writes from different threads.
                target.mailbox.post(.streamData(target.connection, bytes))
            } else {
                state.buffered += bytes
            }
            state.inFlight += bytes.count
            if blocking, state.inFlight > highWaterMark, !HTTPServer.isOnEventLoop {
                state.producerWaiting = true
                mustWait = true
            }
            return true
        }
        if mustWait { resume.wait() }
        return accepted
    }

    /// Ends the stream; later writes are refused.
    func finish() {
        state.withLock { state in
            guard !state.finished, !state.clientGone else { return }
            state.finished = true
            if let target = state.target { target.mailbox.post(.streamEnd(target.connection)) }
        }
    }

    /// Whether writes are still accepted.
    var isOpen: Bool { state.withLock { !$0.finished && !$0.clientGone } }

    /// Whether the client is still connected.
    var isClientConnected: Bool { state.withLock { !$0.clientGone } }

    /// Runs `body` once when the client goes away (at once if it already has).
    func onClose(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.clientGone { return true }
            state.onClose.append(body)
            return false
        }
        if runNow { body() }
    }

    // MARK: - Event loop side

    /// Binds the channel to a connection; returns what was produced before, and whether the
    /// stream already finished.
    func bind(mailbox: LoopMailbox, connection: ConnectionID) -> (bytes: [UInt8], finished: Bool) {
        state.withLock { state in
            state.target = (mailbox, connection)
            let bytes = state.buffered
            state.buffered = []
            return (bytes, state.finished)
        }
    }

    /// Everything handed over so far reached the socket: release a waiting producer.
    func drained() {
        let wake = state.withLock { state -> Bool in
            state.inFlight = 0
            let wake = state.producerWaiting
            state.producerWaiting = false
            return wake
        }
        if wake { resume.signal() }
    }

    /// The client went away or the server closed the connection.
    func clientDisconnected() {
        let (callbacks, wake) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
            guard !state.clientGone else { return ([], false) }
            state.clientGone = true
            let callbacks = state.onClose
            state.onClose = []
            let wake = state.producerWaiting
            state.producerWaiting = false
            return (callbacks, wake)
        }
        if wake { resume.signal() }
        for callback in callbacks { callback() }
    }
}
