import Dispatch
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
///
/// Headers that middleware set on the deferred response (CORS, say) are added to the one that
/// completes it, and that one is compressed like any other answer, on the completing thread.
public final class PendingResponse: Sendable {
    private struct State {
        var target: (mailbox: LoopMailbox, connection: ConnectionID)?
        var response: HTTPResponse?
        var done = false
        var onCancel: [@Sendable () -> Void] = []
        /// What the server does to the answer before sending it, once it knows.
        var finishing: Finishing?
        /// Signalled on completion for a caller waiting in the calling thread.
        var waiter: DispatchSemaphore?
    }

    /// How long the server waits before sending `timeoutResponse`.
    public let timeout: Duration
    /// What is sent if nobody completes the response in time.
    public var timeoutResponse: HTTPResponse { makeTimeoutResponse() }
    private let makeTimeoutResponse: @Sendable () -> HTTPResponse
    /// Whether a server shutting down waits for the answer (within its grace period) instead of
    /// sending `timeoutResponse` at once: for work that will finish, such as a write.
    public let waitsThroughShutdown: Bool
    private let state = Mutex(State())

    /// Creates a pending response.
    /// - Parameters:
    ///   - timeout: How long to wait for `complete(_:)`.
    ///   - timeoutResponse: What to send after the timeout (204 by default).
    ///   - waitsThroughShutdown: Whether shutdown waits for the answer rather than sending
    ///     `timeoutResponse` (long-polls: no).
    public convenience init(timeout: Duration, timeoutResponse: HTTPResponse = .noContent, waitsThroughShutdown: Bool = false) {
        self.init(timeout: timeout, waitsThroughShutdown: waitsThroughShutdown) { timeoutResponse }
    }

    /// Creates a pending response whose timeout response is made only if it is needed: for
    /// work that nearly always completes, whose timeout answer is costly to build.
    public init(timeout: Duration, waitsThroughShutdown: Bool = false, timeoutResponse: @escaping @Sendable () -> HTTPResponse) {
        self.timeout = timeout
        self.makeTimeoutResponse = timeoutResponse
        self.waitsThroughShutdown = waitsThroughShutdown
    }

    /// Completes the response; only the first call (or the timeout) wins.
    /// - Returns: Whether this call completed it.
    @discardableResult
    public func complete(_ response: HTTPResponse) -> Bool {
        // Finished outside the lock: compression is the costly part.
        guard let known = state.withLock({ $0.done ? nil : Optional($0.finishing) }) else { return false }
        var response = response
        known?.apply(to: &response)
        return state.withLock { state in
            guard !state.done else { return false }
            state.done = true
            if known == nil, let finishing = state.finishing { finishing.apply(to: &response) }
            if let target = state.target {
                target.mailbox.post(.response(target.connection, response))
            } else {
                state.response = response
            }
            state.waiter?.signal()
            return true
        }
    }

    /// The answer as it will be sent, for a caller without an event loop: waits in the calling
    /// thread for completion, else the timeout.
    func waitForResponse() -> HTTPResponse {
        let waiter = state.withLock { state -> DispatchSemaphore? in
            guard !state.done else { return nil }
            state.waiter = state.waiter ?? DispatchSemaphore(value: 0)
            return state.waiter
        }
        if let waiter, waiter.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds))) == .timedOut {
            return expire() ?? state.withLock { $0.response } ?? timeoutResponse
        }
        return state.withLock { $0.response } ?? timeoutResponse
    }

    /// What the server does to the answer that completes a deferred response: the headers
    /// middleware set on the deferred one, and compression.
    struct Finishing: Sendable {
        var headers: HTTPHeaders
        var compress: @Sendable (inout HTTPResponse) -> Void

        func apply(to response: inout HTTPResponse) {
            for field in headers where response.headers[field.name] == nil {
                response.headers.add(name: field.name, value: field.value)
            }
            compress(&response)
        }
    }

    /// Tells how to finish the answer; one completed already is finished now.
    func prepare(_ finishing: Finishing) {
        state.withLock { state in
            state.finishing = finishing
            if state.done, var response = state.response {
                finishing.apply(to: &response)
                state.response = response
            }
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
            var response = timeoutResponse
            state.finishing?.apply(to: &response)
            return response
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
