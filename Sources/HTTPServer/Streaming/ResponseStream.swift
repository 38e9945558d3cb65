/// The body of a streamed response: any thread writes bytes, then finishes. Sent with chunked
/// transfer coding (close-delimited to HTTP/1.0 clients).
///
/// ```swift
/// let stream = ResponseStream()
/// Thread { for part in parts { stream.write(part) }; stream.finish() }.start()
/// return .stream(stream, headers: ["Content-Type": "text/csv"])
/// ```
public final class ResponseStream: Sendable {
    let channel: StreamChannel

    /// Creates a stream.
    /// - Parameter highWaterMark: Undelivered bytes above which `write` waits for the client.
    public init(highWaterMark: Int = 1 << 20) {
        channel = StreamChannel(highWaterMark: highWaterMark)
    }

    /// Sends bytes. Waits while more than the high-water mark is undelivered (except on an event
    /// loop thread, where it never waits).
    /// - Returns: `false` if the stream was finished or the client went away.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool { channel.write(bytes, blocking: true) }

    /// Sends the UTF-8 bytes of `text`.
    @discardableResult
    public func write(_ text: String) -> Bool { channel.write(Array(text.utf8), blocking: true) }

    /// Ends the body.
    public func finish() { channel.finish() }

    /// Whether the client is still connected.
    public var isClientConnected: Bool { channel.isClientConnected }

    /// Runs `body` once when the client goes away before the stream finishes
    /// (on the event loop: keep it short).
    public func onClose(_ body: @escaping @Sendable () -> Void) { channel.onClose(body) }
}
