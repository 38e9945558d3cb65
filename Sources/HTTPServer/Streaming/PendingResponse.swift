import Synchronization

/// A response completed later by any thread (long-poll). The handler returns
/// `.deferred(pending)` at once, freeing its worker; the connection waits on the event loop, with
/// no thread held, until `complete(_:)` is called or the timeout answers for it.
///
/// ```swift
/// let pending = PendingResponse(timeout: .seconds(30), timeoutResponse: .json(#"{"changes":[]}"#))
/// notifications.waitForNext { change in pending.complete(.json(change)) }
/// return .deferred(pending)
/// ```
public final class PendingResponse: Sendable {
    private struct State {
        var target: (mailbox: LoopMailbox, connection: ConnectionID)?
        var response: HTTPResponse?
        var done = false
        var onCancel: [@Sendable () -> Void] = []
    }

    /// How long the server waits before sending `timeoutResponse`.
    public let timeout: Duration
    /// What is sent if nobody completes the response in time.
    public let timeoutResponse: HTTPResponse
    private let state = Mutex(State())

    /// Creates a pending response.
    /// - Parameters:
    ///   - timeout: How long to wait for `complete(_:)`.
    ///   - timeoutResponse: What to send after the timeout (204 by default).
    public init(timeout: Duration, timeoutResponse: HTTPResponse = .noContent) {
        self.timeout = timeout
        self.timeoutResponse = timeoutResponse
    }

    /// Completes the response; only the first call (or the timeout) wins.
    /// - Returns: Whether this call completed it.
    @discardableResult
    public func complete(_ response: HTTPResponse) -> Bool {
        state.withLock { state in
            guard !state.done else { return false }
            state.done = true
            if let target = state.target {
                target.mailbox.post(.response(target.connection, response))
            } else {
                state.response = response
            }
            return true
        }
    }

    /// Whether the response was completed, timed out or cancelled.
    public var isCompleted: Bool { state.withLock { $0.done } }

    /// Runs `body` once if the client goes away (or the server shuts down) before completion,
    /// so the producer can stop waiting for it. Runs on the event loop: keep it short.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCancel.append(body) }
    }

    // MARK: - Event loop side

    /// Binds to a connection; returns the response if it was completed already.
    func bind(mailbox: LoopMailbox, connection: ConnectionID) -> HTTPResponse? {
        state.withLock { state in
            if state.done { return state.response ?? timeoutResponse }
            state.target = (mailbox, connection)
            return nil
        }
    }

    /// The timeout passed: the timeout response if nobody completed first.
    func expire() -> HTTPResponse? {
        state.withLock { state in
            guard !state.done else { return nil }
            state.done = true
            return timeoutResponse
        }
    }

    /// The client went away first.
    func cancel() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.done else { return [] }
            state.done = true
            let callbacks = state.onCancel
            state.onCancel = []
            return callbacks
        }
        for callback in callbacks { callback() }
    }
}
