import CloudStore
import HTTPServer
import Logging

/// Everything `cumulus serve` runs with, resolved once at start: a flag wins over its
/// `CUMULUS_*` environment variable, which wins over the default.
///
/// | setting | flag | environment | default |
/// |---|---|---|---|
/// | address | `--host`, `--port` | `CUMULUS_HOST`, `CUMULUS_PORT` | 127.0.0.1, 8080 |
/// | data directory | `--data-dir` | `CUMULUS_DATA_DIR` | `./data` |
/// | static files | `--public-dir` | `CUMULUS_PUBLIC_DIR` | `./Public` |
/// | page templates | `--templates-dir` | `CUMULUS_TEMPLATES_DIR` | `./Templates` |
/// | public URL (in links) | `--public-url` | `CUMULUS_PUBLIC_URL` | `http://` + the request's `Host` |
/// | log level | `--log-level` | `CUMULUS_LOG_LEVEL` | `info` |
/// | event loops, workers, queue | `--event-loops`, `--workers`, `--worker-queue` | `CUMULUS_EVENT_LOOPS`, `CUMULUS_WORKERS`, `CUMULUS_WORKER_QUEUE` | cores, 4 × cores (≥ 4), 10000 |
/// | header / body limits | `--max-header-bytes`, `--max-body-bytes` | `CUMULUS_MAX_HEADER_BYTES`, `CUMULUS_MAX_BODY_BYTES` | 16KiB, 64MiB |
/// | timeouts | `--header-read-timeout`, `--body-read-timeout`, `--idle-timeout`, `--write-timeout` | `CUMULUS_HEADER_READ_TIMEOUT`, `CUMULUS_BODY_READ_TIMEOUT`, `CUMULUS_IDLE_TIMEOUT`, `CUMULUS_WRITE_TIMEOUT` | 10s, 30s, 60s, 30s |
/// | connection cap | `--max-connections` | `CUMULUS_MAX_CONNECTIONS` | 10000 |
/// | gzip threshold | `--gzip-min-bytes` | `CUMULUS_GZIP_MIN_BYTES` | 1KiB |
/// | SSE heartbeat | `--event-stream-heartbeat` | `CUMULUS_EVENT_STREAM_HEARTBEAT` | 15s |
/// | shutdown grace | `--shutdown-grace` | `CUMULUS_SHUTDOWN_GRACE` | 10s |
/// | access log | `--access-log` / `--no-access-log` | `CUMULUS_ACCESS_LOG` | on |
/// | `/healthz` on the event loop (diagnostic) | — | `CUMULUS_HEALTHZ_ON_EVENT_LOOP` | true |
/// | durability of commits | `--synchronous normal\|full` | `CUMULUS_SYNCHRONOUS` | normal |
/// | demo container on first start | `--demo` / `--no-demo` | `CUMULUS_DEMO` | on |
///
/// Sizes take `KiB`/`MiB`/`GiB` (or `K`/`M`/`G`) suffixes; durations `ms`, `s`, `m`, `h`
/// (a bare number is seconds).
struct ServerSettings: Sendable {
    /// The HTTP server's configuration (address, threads, limits, timeouts).
    var http = HTTPServerConfiguration()
    /// Where CloudStore keeps its databases and assets.
    var dataDirectory = "./data"
    /// The folder served under `/static/`.
    var publicDirectory = "./Public"
    /// The folder of the pages' `.mustache` templates.
    var templatesDirectory = "./Templates"
    /// The URL clients reach the server at (behind a proxy, say), used in links; `nil` derives
    /// `http://<Host>` per request.
    var publicURL: String?
    /// The lowest level logged.
    var logLevel = Logger.Level.info
    /// Whether `/healthz` runs on the event loop (the default) or, for measuring the worker
    /// pool's cost, on a worker (`CUMULUS_HEALTHZ_ON_EVENT_LOOP=false`).
    var healthzOnEventLoop = true
    /// How durable commits are: `normal` survives a crash of the process, `full` also power loss.
    var synchronous = SynchronousMode.normal
    /// Whether a first start (no containers yet) seeds the demo container.
    var demo = true

    /// A problem with a flag or an environment variable.
    struct InvalidSetting: Error, CustomStringConvertible {
        var name: String
        var value: String
        var expected: String
        var description: String { "invalid value '\(value)' for \(name): expected \(expected)" }
    }

    /// Resolves the settings from flags, then `environment`, then defaults.
    /// - Throws: `InvalidSetting` naming the first flag or variable that cannot be read.
    static func resolve(options: ServeOptions, environment: [String: String]) throws -> ServerSettings {
        var settings = ServerSettings()
        let reader = SettingReader(environment: environment)
        settings.http.host = reader.string(options.host, "CUMULUS_HOST") ?? settings.http.host
        settings.http.port = try reader.integer(options.port, "CUMULUS_PORT", in: 0...65535) ?? settings.http.port
        settings.dataDirectory = reader.string(options.dataDirectory, "CUMULUS_DATA_DIR") ?? settings.dataDirectory
        settings.publicDirectory = reader.string(options.publicDirectory, "CUMULUS_PUBLIC_DIR") ?? settings.publicDirectory
        settings.templatesDirectory = reader.string(options.templatesDirectory, "CUMULUS_TEMPLATES_DIR") ?? settings.templatesDirectory
        if let url = reader.string(options.publicURL, "CUMULUS_PUBLIC_URL") {
            guard isPublicURL(url) else {
                throw InvalidSetting(name: options.publicURL != nil ? "--public-url" : "CUMULUS_PUBLIC_URL", value: url,
                                     expected: "an http or https URL without query, such as https://cloud.example.com")
            }
            settings.publicURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        if let level = reader.string(options.logLevel, "CUMULUS_LOG_LEVEL") {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw InvalidSetting(name: options.logLevel != nil ? "--log-level" : "CUMULUS_LOG_LEVEL", value: level,
                                     expected: Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
            }
            settings.logLevel = parsed
        }

        var http = settings.http
        http.eventLoopCount = try reader.integer(options.eventLoops, "CUMULUS_EVENT_LOOPS", in: 1...256) ?? http.eventLoopCount
        http.workerCount = try reader.integer(options.workers, "CUMULUS_WORKERS", in: 1...4096) ?? http.workerCount
        http.workerQueueCapacity = try reader.integer(options.workerQueue, "CUMULUS_WORKER_QUEUE", in: 1...10_000_000) ?? http.workerQueueCapacity
        http.maxHeaderBytes = try reader.size(options.maxHeaderBytes, "CUMULUS_MAX_HEADER_BYTES") ?? http.maxHeaderBytes
        http.maxBodyBytes = try reader.size(options.maxBodyBytes, "CUMULUS_MAX_BODY_BYTES") ?? http.maxBodyBytes
        http.headerReadTimeout = try reader.duration(options.headerReadTimeout, "CUMULUS_HEADER_READ_TIMEOUT") ?? http.headerReadTimeout
        http.bodyReadTimeout = try reader.duration(options.bodyReadTimeout, "CUMULUS_BODY_READ_TIMEOUT") ?? http.bodyReadTimeout
        http.idleTimeout = try reader.duration(options.idleTimeout, "CUMULUS_IDLE_TIMEOUT") ?? http.idleTimeout
        http.writeTimeout = try reader.duration(options.writeTimeout, "CUMULUS_WRITE_TIMEOUT") ?? http.writeTimeout
        http.maxConnections = try reader.integer(options.maxConnections, "CUMULUS_MAX_CONNECTIONS", in: 1...10_000_000) ?? http.maxConnections
        http.gzipMinimumBytes = try reader.size(options.gzipMinBytes, "CUMULUS_GZIP_MIN_BYTES") ?? http.gzipMinimumBytes
        http.eventStreamHeartbeat = try reader.duration(options.eventStreamHeartbeat, "CUMULUS_EVENT_STREAM_HEARTBEAT") ?? http.eventStreamHeartbeat
        http.shutdownGracePeriod = try reader.duration(options.shutdownGrace, "CUMULUS_SHUTDOWN_GRACE") ?? http.shutdownGracePeriod
        http.accessLog = try reader.boolean(options.accessLog, "CUMULUS_ACCESS_LOG") ?? http.accessLog
        settings.http = http
        settings.healthzOnEventLoop = try reader.boolean(nil, "CUMULUS_HEALTHZ_ON_EVENT_LOOP") ?? true
        if let mode = reader.string(options.synchronous, "CUMULUS_SYNCHRONOUS") {
            guard let parsed = SynchronousMode(rawValue: mode.uppercased()) else {
                throw InvalidSetting(name: options.synchronous != nil ? "--synchronous" : "CUMULUS_SYNCHRONOUS", value: mode, expected: "normal or full")
            }
            settings.synchronous = parsed
        }
        settings.demo = try reader.boolean(options.demo, "CUMULUS_DEMO") ?? true
        return settings
    }

    /// Whether `text` is `http(s)://host[:port][/path]`, without user, query, fragment, spaces or
    /// other characters a link must not carry: sign-in links and the pages' links are built on it.
    static func isPublicURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        let scheme = lowered.hasPrefix("https://") ? "https://" : lowered.hasPrefix("http://") ? "http://" : nil
        guard let scheme else { return false }
        let rest = text.utf8.dropFirst(scheme.utf8.count)
        guard let first = rest.first, first != UInt8(ascii: "/") else { return false }
        // Printable ASCII except what would start a user, query or fragment, or break a header.
        return rest.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "?") && byte != UInt8(ascii: "#") && byte != UInt8(ascii: "@")
                && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "<") && byte != UInt8(ascii: ">")
        }
    }

    /// The URL to print at start.
    var listeningURL: String {
        let host = http.host.contains(":") && !http.host.hasPrefix("[") ? "[\(http.host)]" : http.host
        return "http://\(host):\(http.port)"
    }
}
