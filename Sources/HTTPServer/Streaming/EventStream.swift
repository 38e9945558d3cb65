/// A server-sent-event stream (`text/event-stream`): any thread sends events; the server adds
/// heartbeat comments while it is quiet so proxies and clients keep the connection.
///
/// ```swift
/// let events = EventStream()
/// hub.subscribe(events)                       // later, from any thread:
/// events.send(event: "record", id: "42", data: #"{"recordName":"A"}"#)
/// return .eventStream(events)
/// ```
public final class EventStream: Sendable {
    let channel: StreamChannel
    /// The interval between heartbeats, or nil for the server's default.
    public let heartbeatInterval: Duration?
    /// The comment line sent as a heartbeat (`: heartbeat`).
    let heartbeatBytes: [UInt8]

    /// Creates a stream.
    /// - Parameters:
    ///   - heartbeatInterval: Quiet time after which a comment is sent; nil for the server's default.
    ///   - heartbeatComment: The comment text of heartbeats.
    public init(heartbeatInterval: Duration? = nil, heartbeatComment: String = "heartbeat") {
        channel = StreamChannel(highWaterMark: Int.max)
        self.heartbeatInterval = heartbeatInterval
        heartbeatBytes = Array(": \(EventStream.singleLine(heartbeatComment))\n\n".utf8)
    }

    /// Sends one event; multi-line data becomes several `data:` lines. Never blocks.
    /// - Returns: `false` if the stream is closed or the client went away.
    @discardableResult
    public func send(event: String? = nil, id: String? = nil, data: String) -> Bool {
        var text = ""
        if let id { text += "id: \(EventStream.singleLine(id))\n" }
        if let event { text += "event: \(EventStream.singleLine(event))\n" }
        // CR, LF and CRLF all end a line in an event stream ("\r\n" is one Character in Swift).
        for line in data.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            text += "data: "
            text += line
            text += "\n"
        }
        text += "\n"
        return channel.write(Array(text.utf8), blocking: false)
    }

    /// Ends the stream; the connection stays usable for the client's next request.
    public func close() { channel.finish() }

    /// Whether events are still accepted.
    public var isOpen: Bool { channel.isOpen }

    /// Runs `body` once when the client goes away (on the event loop: keep it short).
    public func onClose(_ body: @escaping @Sendable () -> Void) { channel.onClose(body) }

    private static func singleLine(_ text: String) -> String {
        text.contains(where: \.isNewline) ? text.filter { !$0.isNewline } : text
    }
}
