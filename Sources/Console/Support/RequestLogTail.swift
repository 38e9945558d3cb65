import CloudStore
import HTTPServer

/// The live tail of the request log: a server-sent event stream of each new entry the filter
/// passes, as JSON, until the client goes away.
enum RequestLogTail {
    /// The stream's response.
    static func response(_ log: RequestLog, filter: RequestLogFilter) -> HTTPResponse {
        let stream = EventStream(heartbeatInterval: .seconds(15))
        var filter = filter
        // Only what happens from now on; the time range of the page does not apply.
        filter.from = nil
        filter.to = nil
        filter.before = nil
        let live = filter
        let cancel = log.listen { entry in
            guard live.matches(entry) else { return stream.isOpen }
            let data = String(decoding: ManagementActions.logEntryJSON(entry).serialized(), as: UTF8.self)
            return stream.send(event: "request", id: String(entry.id), data: data)
        }
        stream.onClose(cancel)
        var response = HTTPResponse.eventStream(stream)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
