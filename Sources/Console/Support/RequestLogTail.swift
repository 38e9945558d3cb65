import CloudStore
import Dispatch
import HTTPServer

/// The live tail of the request log: a server-sent event stream of each new entry the filter
/// passes, as JSON, until the client goes away or the credential it was opened with no longer
/// holds (a management token revoked, a console session ended, an operator removed).
enum RequestLogTail {
    /// The stream's response.
    /// - Parameters:
    ///   - heartbeat: how long the stream may be quiet before a heartbeat, and how often the
    ///     credential is checked again while it is; it is also checked before each event.
    ///   - render: when given, each entry is sent as the HTML it returns (event `row`), as the
    ///     console's page shows it, rather than as JSON (event `request`).
    ///   - stillAuthenticated: whether the credential the stream was opened with still holds.
    static func response(
        _ log: RequestLog, filter: RequestLogFilter, heartbeat: Duration, render: (@Sendable (RequestLogEntry) -> String?)? = nil,
        stillAuthenticated: @escaping @Sendable () -> Bool
    ) -> HTTPResponse {
        let stream = EventStream(heartbeatInterval: heartbeat)
        var filter = filter
        // Only what happens from now on; the time range of the page does not apply.
        filter.from = nil
        filter.to = nil
        filter.before = nil
        let live = filter
        let cancel = log.listen { entry in
            guard stream.isOpen else { return false }
            guard live.matches(entry) else { return true }
            guard stillAuthenticated() else {
                stream.close()
                return false
            }
            if let render {
                guard let html = render(entry) else { return true }
                return stream.send(event: "row", id: String(entry.id), data: html)
            }
            let data = String(decoding: ManagementActions.logEntryJSON(entry).serialized(), as: UTF8.self)
            return stream.send(event: "request", id: String(entry.id), data: data)
        }
        stream.onClose(cancel)
        // A quiet stream is checked as often as it beats; the checks stop once it is closed.
        let (seconds, attoseconds) = heartbeat.components
        let interval = DispatchTimeInterval.milliseconds(max(1, Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)))
        @Sendable func recheck() {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) {
                guard stream.isOpen else { return cancel() }
                guard stillAuthenticated() else {
                    stream.close()
                    return cancel()
                }
                recheck()
            }
        }
        recheck()
        var response = HTTPResponse.eventStream(stream)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
