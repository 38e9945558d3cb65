import CloudStore
import HTTPServer

/// `GET /healthz`: `{"status":"ok","version":"0.1.0","uptimeSeconds":12}`.
struct HealthCheck: Sendable {
    /// When the server started.
    let started: ContinuousClock.Instant

    private static let prefix = Array("{\"status\":\"ok\",\"version\":\"\(CumulusVersion.current)\",\"uptimeSeconds\":".utf8)

    /// Answers the health check; cheap and non-blocking, so it may run on the event loop.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        let uptime = (ContinuousClock.now - started).components.seconds
        var body: [UInt8] = []
        body.reserveCapacity(HealthCheck.prefix.count + 24)
        body += HealthCheck.prefix
        body += String(uptime).utf8
        body.append(UInt8(ascii: "}"))
        return .json(body)
    }

    /// Answers `/readyz`: 200 `{"status":"ready","processes":2}`, or 503
    /// `{"status":"unavailable","reason":…,"processes":1}`, where `processes` counts those serving
    /// from the same database (each admits that share of every request rate).
    /// It reads the database, so it runs on the worker pool.
    static func readiness(of store: CloudStore) -> HTTPResponse {
        let problem = store.readinessProblem()
        let body = Readiness(status: problem == nil ? "ready" : "unavailable", reason: problem, processes: store.liveProcessCount)
        return (try? .json(encoding: body, status: problem == nil ? .ok : .serviceUnavailable))
            ?? .json(#"{"status":"unavailable"}"#, status: .serviceUnavailable)
    }

    private struct Readiness: Encodable {
        var status: String
        var reason: String?
        var processes: Int
    }
}
