import HTTPServer

/// `GET /healthz`: `{"status":"ok","version":"0.1.0","uptimeSeconds":12}`.
struct HealthCheck: Sendable {
    /// When the server started.
    let started: ContinuousClock.Instant

    /// Answers the health check; cheap and non-blocking, so it may run on the event loop.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let uptime = (ContinuousClock.now - started).components.seconds
        return .json("{\"status\":\"ok\",\"version\":\"\(CumulusVersion.current)\",\"uptimeSeconds\":\(uptime)}")
    }
}
