import CloudStore
import HTTPServer
import Logging

/// One setting of `cumulus serve`, declared once: its flag, its `CUMULUS_*` variable, the default
/// people read, a line of help, and how a value is read into ``ServerSettings``. The command's
/// options, its help, the environment lookup and the README's table all come from
/// ``ServeSetting/all``.
struct ServeSetting: Sendable {
    /// What a value looks like.
    enum Kind: Sendable {
        /// `--flag VALUE` or `--flag=VALUE`.
        case value(placeholder: String)
        /// `--flag` or `--no-flag`; the variable takes true/false, 1/0, yes/no, on/off.
        case switchable
    }

    /// The flag without its dashes: `port` for `--port`.
    let flag: String
    /// What it sets, for people.
    let help: String
    /// The default as people read it, in the README's table and the help.
    let defaultText: String
    let kind: Kind
    /// Reads `value` (the flag's, else the variable's) into the settings.
    let apply: @Sendable (_ value: String, _ settings: inout ServerSettings, _ source: String) throws -> Void

    /// `CUMULUS_` and the flag in upper case with underscores: `CUMULUS_MAX_BODY_BYTES`.
    var variable: String { "CUMULUS_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }

    init(
        _ flag: String, _ help: String, default defaultText: String, _ kind: Kind,
        _ apply: @escaping @Sendable (_ value: String, _ settings: inout ServerSettings, _ source: String) throws -> Void
    ) {
        self.flag = flag
        self.help = help
        self.defaultText = defaultText
        self.kind = kind
        self.apply = apply
    }
}

// MARK: - Readers

extension ServeSetting {
    typealias Invalid = ServerSettings.InvalidSetting

    static func integer(_ text: String, _ source: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw Invalid(name: source, value: text, expected: "an integer in \(range)")
        }
        return value
    }

    static func size(_ text: String, _ source: String) throws -> Int {
        guard let value = SettingReader.parseSize(text), value > 0 else {
            throw Invalid(name: source, value: text, expected: "a byte count such as 65536, 16KiB or 64MiB")
        }
        return value
    }

    static func duration(_ text: String, _ source: String) throws -> Duration {
        guard let value = SettingReader.parseDuration(text) else {
            throw Invalid(name: source, value: text, expected: "a duration such as 500ms, 10s or 2m")
        }
        return value
    }

    static func boolean(_ text: String, _ source: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw Invalid(name: source, value: text, expected: "true or false")
        }
    }
}

// MARK: - The table

extension ServeSetting {
    /// Every setting of `cumulus serve`, in the order the help and the README list them.
    static let all: [ServeSetting] = [
        ServeSetting(
            "host", "The address to listen on (an IP address or localhost).", default: "`127.0.0.1`", .value(placeholder: "ADDRESS")
        ) { value, settings, _ in
            settings.http.host = value
        },
        ServeSetting("port", "The port to listen on; 0 picks a free one.", default: "`8080`", .value(placeholder: "PORT")) {
            $1.http.port = try integer($0, $2, in: 0...65535)
        },
        ServeSetting("data-dir", "Where databases and assets are kept.", default: "`./data`", .value(placeholder: "DIR")) {
            value, settings, _ in
            settings.dataDirectory = value
        },
        ServeSetting(
            "database-url", "The PostgreSQL database that several servers share (`postgres://user:password@host:5432/cumulus`).",
            default: "SQLite files in the data directory", .value(placeholder: "URL")
        ) { value, settings, source in
            do {
                settings.database = try DatabaseSetting.resolve(value)
            } catch {
                throw Invalid(name: source, value: DatabaseLocation.postgres(url: value).description, expected: "\(error)")
            }
        },
        ServeSetting(
            "public-dir", "The folder served under `/static/` (css, scripts, `openapi.json`).", default: "`./Public`",
            .value(placeholder: "DIR")
        ) { value, settings, _ in
            settings.publicDirectory = value
        },
        ServeSetting("templates-dir", "The folder of the pages' templates.", default: "`./Templates`", .value(placeholder: "DIR")) {
            value, settings, _ in
            settings.templatesDirectory = value
        },
        ServeSetting(
            "public-url", "The URL clients reach this server at, used in the links it hands out (sign-in, courier, pages).",
            default: "the listen address, or an allowed Host", .value(placeholder: "URL")
        ) { value, settings, source in
            guard ServerSettings.isPublicURL(value) else {
                throw Invalid(name: source, value: value, expected: "an http or https URL without query, such as https://cloud.example.com")
            }
            settings.publicURL = value.hasSuffix("/") ? String(value.dropLast()) : value
        },
        ServeSetting(
            "allowed-hosts",
            "`Host` names (or `name:port`), comma-separated, that links may be built on besides the listen address, when no public URL is set.",
            default: "none", .value(placeholder: "HOSTS")
        ) { value, settings, source in
            guard let hosts = HTTPRequest.allowedHosts(value) else {
                throw Invalid(
                    name: source, value: value,
                    expected: "host names or addresses with an optional port, such as cloud.example.com,10.0.0.5:8080")
            }
            settings.allowedHosts = hosts
        },
        ServeSetting(
            "trusted-proxies",
            "Proxies (CIDR blocks, comma-separated) whose `X-Forwarded-For` and `X-Forwarded-Proto` name the client; they are not held to the per-client connection cap.",
            default: "none", .value(placeholder: "CIDRS")
        ) { value, settings, source in
            do {
                settings.http.trustedProxies = try TrustedProxies(parsing: value)
            } catch {
                throw Invalid(name: source, value: value, expected: "CIDR blocks such as 127.0.0.1/32,10.0.0.0/8,fd00::/8 (\(error))")
            }
        },
        ServeSetting(
            "synchronous", "Durability: `normal` (commits survive a crash) or `full` (also power loss).",
            default: "`normal`", .value(placeholder: "MODE")
        ) { value, settings, source in
            guard let mode = SynchronousMode(rawValue: value.uppercased()) else {
                throw Invalid(name: source, value: value, expected: "normal or full")
            }
            settings.synchronous = mode
        },
        ServeSetting(
            "request-log-retention", "How long the request log keeps a call (1h to 400d).",
            default: "`7d`", .value(placeholder: "DURATION")
        ) { value, settings, source in
            guard let retention = SettingReader.parseDuration(value), retention >= .seconds(3600), retention <= .seconds(400 * 86_400)
            else {
                throw Invalid(name: source, value: value, expected: "a duration from 1h to 400d, such as 7d or 36h")
            }
            settings.requestLogRetention = retention
        },
        ServeSetting(
            "request-log-max-size",
            "Most bytes the request log may take (at least 64KiB); the oldest calls are forgotten first past it. `0`: no size bound.",
            default: "`1GiB`", .value(placeholder: "SIZE")
        ) { value, settings, source in
            let bytes = value == "0" ? 0 : try size(value, source)
            guard bytes == 0 || bytes >= 64 << 10 else {
                throw Invalid(name: source, value: value, expected: "0 or a size of at least 64KiB")
            }
            settings.requestLogMaxSize = bytes == 0 ? nil : Int64(bytes)
        },
        ServeSetting(
            "request-log-sample-reads",
            "Successful reads the request log keeps per second at most (failures and writes always kept); `0` keeps every call.",
            default: "`0`", .value(placeholder: "N")
        ) { value, settings, source in
            guard let rate = Int(value), rate >= 0 else {
                throw Invalid(name: source, value: value, expected: "a whole number of calls a second")
            }
            settings.requestLogSampleReads = rate == 0 ? nil : rate
        },
        ServeSetting(
            "trace-sample",
            "The share of API requests (0 to 1) whose allowed access decisions the request log keeps; every refusal's is kept.",
            default: "`0.01`", .value(placeholder: "RATE")
        ) { value, settings, source in
            guard let rate = Double(value), rate >= 0, rate <= 1 else {
                throw Invalid(name: source, value: value, expected: "a share of requests from 0 to 1, such as 0.01")
            }
            settings.traceSample = rate
        },
        ServeSetting(
            "audit-retention", "How long the audit trail keeps an operator action (1d to 3650d); apart from the request log's.",
            default: "`400d`", .value(placeholder: "DURATION")
        ) { value, settings, source in
            guard let retention = SettingReader.parseDuration(value), retention >= .seconds(86_400), retention <= .seconds(3650 * 86_400)
            else {
                throw Invalid(name: source, value: value, expected: "a duration from 1d to 3650d, such as 400d")
            }
            settings.auditRetention = retention
        },
        ServeSetting(
            "tombstone-retention", "How long change feeds keep deleted records' and zones' tombstones (1h to 400d).",
            default: "`30d`", .value(placeholder: "DURATION")
        ) { value, settings, source in
            guard let retention = SettingReader.parseDuration(value), retention >= .seconds(3600), retention <= .seconds(400 * 86_400)
            else {
                throw Invalid(name: source, value: value, expected: "a duration from 1h to 400d, such as 30d or 36h")
            }
            settings.tombstoneRetention = retention
        },
        ServeSetting(
            "history-retention",
            "How long replaced record versions and deleted records and zones stay in the history and trash (1h to 3650d), unless an environment sets its own.",
            default: "`30d`", .value(placeholder: "DURATION")
        ) { value, settings, source in
            guard let retention = SettingReader.parseDuration(value), retention >= .seconds(3600), retention <= .seconds(3650 * 86_400)
            else {
                throw Invalid(name: source, value: value, expected: "a duration from 1h to 3650d, such as 30d or 36h")
            }
            settings.historyRetention = retention
        },
        ServeSetting("demo", "Seed the demo container iCloud.com.example.Notes on first start.", default: "on", .switchable) {
            $1.demo = try boolean($0, $2)
        },
        ServeSetting(
            "log-level", "trace, debug, info, notice, warning, error or critical.", default: "`info`", .value(placeholder: "LEVEL")
        ) {
            value, settings, source in
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw Invalid(name: source, value: value, expected: Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
            }
            settings.logLevel = level
        },
        ServeSetting("access-log", "One log line per request, credentials in the query redacted.", default: "on", .switchable) {
            $1.http.accessLog = try boolean($0, $2)
        },
        ServeSetting("event-loops", "Event-loop threads.", default: "one per core", .value(placeholder: "N")) {
            $1.http.eventLoopCount = try integer($0, $2, in: 1...256)
        },
        ServeSetting("workers", "Worker threads for handlers.", default: "4 per core, at least 4", .value(placeholder: "N")) {
            $1.http.workerCount = try integer($0, $2, in: 1...4096)
        },
        ServeSetting(
            "awake-workers", "Workers new requests wake at most; more wake when those block.", default: "one per core",
            .value(placeholder: "N")
        ) {
            $1.http.awakeWorkerLimit = try integer($0, $2, in: 1...4096)
        },
        ServeSetting("worker-queue", "Requests that may wait for a worker before 503.", default: "`10000`", .value(placeholder: "N")) {
            $1.http.workerQueueCapacity = try integer($0, $2, in: 1...10_000_000)
        },
        ServeSetting(
            "max-header-bytes", "Limit of the request line plus headers (431 above).", default: "`16KiB`", .value(placeholder: "SIZE")
        ) {
            $1.http.maxHeaderBytes = try size($0, $2)
        },
        ServeSetting(
            "max-body-bytes", "Limit of a request body (413 above), where a route sets none of its own.",
            default: "`1MiB`", .value(placeholder: "SIZE")
        ) {
            $1.http.maxBodyBytes = try size($0, $2)
        },
        ServeSetting(
            "max-api-body-bytes", "Limit of a CloudKit Web Services request body (413 above).", default: "`4MiB`",
            .value(placeholder: "SIZE")
        ) {
            $1.maxAPIBodyBytes = try size($0, $2)
        },
        ServeSetting(
            "max-asset-bytes", "Largest asset file an upload may hold (QUOTA_EXCEEDED above).", default: "`50MiB`",
            .value(placeholder: "SIZE")
        ) {
            $1.maxAssetBytes = try size($0, $2)
        },
        ServeSetting(
            "assets",
            "Where asset blobs are kept: a directory, or `s3://BUCKET` with `--assets-endpoint` and the keys in "
                + "`CUMULUS_ASSETS_ACCESS_KEY_ID` and `CUMULUS_ASSETS_SECRET_ACCESS_KEY`.", default: "the data directory",
            .value(placeholder: "DIR-OR-S3-URL")
        ) { value, settings, _ in
            settings.assets = value
        },
        ServeSetting(
            "assets-endpoint",
            "The S3-compatible server of `--assets s3://BUCKET`, `http://host:port` (plain HTTP: this host or a private network).",
            default: "none", .value(placeholder: "URL")
        ) { value, settings, _ in
            settings.assetsEndpoint = value
        },
        ServeSetting("assets-region", "The region S3 requests are signed for.", default: "`us-east-1`", .value(placeholder: "REGION")) {
            value, settings, _ in
            settings.assetsRegion = value
        },
        ServeSetting(
            "backup-to",
            "Where the server's backups go and the console lists them: a directory, or `s3://BUCKET/PREFIX` on the S3 server "
                + "of `--assets-endpoint` with the asset store's keys.", default: "`backups` in the data directory",
            .value(placeholder: "DIR-OR-S3-URL")
        ) { value, settings, _ in
            settings.backupTo = value
        },
        ServeSetting(
            "backup-schedule", "How often the server backs itself up, such as `6h` or `30m` (at least a minute). `0`: never.",
            default: "`0`", .value(placeholder: "DURATION")
        ) { value, settings, source in
            let interval = try duration(value, source)
            guard interval == .zero || interval >= .seconds(60) else {
                throw Invalid(name: source, value: value, expected: "0 or a duration of at least a minute, such as 6h")
            }
            settings.backupInterval = interval == .zero ? nil : interval
        },
        ServeSetting(
            "backup-keep", "How many backups are kept; older ones are deleted after each new one.", default: "`7`",
            .value(placeholder: "N")
        ) {
            $1.backupKeep = try integer($0, $2, in: 1...10_000)
        },
        ServeSetting("header-read-timeout", "Time to receive a request head.", default: "`10s`", .value(placeholder: "DURATION")) {
            $1.http.headerReadTimeout = try duration($0, $2)
        },
        ServeSetting(
            "body-read-timeout", "Time to receive a request body, plus a second per minimum-rate's worth received.",
            default: "`30s`", .value(placeholder: "DURATION")
        ) {
            $1.http.bodyReadTimeout = try duration($0, $2)
        },
        ServeSetting(
            "min-body-rate", "The slowest rate a long body may arrive at.", default: "`16KiB` per second",
            .value(placeholder: "SIZE")
        ) {
            $1.http.minimumBodyBytesPerSecond = try size($0, $2)
        },
        ServeSetting("idle-timeout", "Time an idle keep-alive connection stays open.", default: "`60s`", .value(placeholder: "DURATION")) {
            $1.http.idleTimeout = try duration($0, $2)
        },
        ServeSetting(
            "write-timeout", "Time a client may take to accept more response bytes.", default: "`30s`",
            .value(placeholder: "DURATION")
        ) {
            $1.http.writeTimeout = try duration($0, $2)
        },
        ServeSetting(
            "max-connections", "Most connections open at once (503 and closed above).", default: "`10000`",
            .value(placeholder: "N")
        ) {
            $1.http.maxConnections = try integer($0, $2, in: 1...10_000_000)
        },
        ServeSetting(
            "max-connections-per-client", "Most connections open at once from one client address (503 and closed above).",
            default: "`256`", .value(placeholder: "N")
        ) {
            $1.http.maxConnectionsPerClient = try integer($0, $2, in: 1...10_000_000)
        },
        ServeSetting("gzip-min-bytes", "Smallest body that is gzip-compressed.", default: "`1KiB`", .value(placeholder: "SIZE")) {
            $1.http.gzipMinimumBytes = try size($0, $2)
        },
        ServeSetting(
            "event-stream-heartbeat", "Heartbeat interval of server-sent-event streams.", default: "`15s`",
            .value(placeholder: "DURATION")
        ) {
            $1.http.eventStreamHeartbeat = try duration($0, $2)
        },
        ServeSetting(
            "shutdown-grace", "Time in-flight requests get to finish at shutdown.", default: "`10s`",
            .value(placeholder: "DURATION")
        ) {
            $1.http.shutdownGracePeriod = try duration($0, $2)
        },
        ServeSetting(
            "healthz-on-event-loop", "Answer `/healthz` on the event loop (off measures the worker pool's cost).",
            default: "on", .switchable
        ) {
            $1.healthzOnEventLoop = try boolean($0, $2)
        },
    ]

    /// The README's table of settings, as rendered from ``all``.
    static var markdownTable: String {
        var lines = ["| setting | flag | environment | default |", "|---|---|---|---|"]
        for setting in all {
            let flag: String
            switch setting.kind {
            case .value(let placeholder): flag = "`--\(setting.flag) \(placeholder)`"
            case .switchable: flag = "`--\(setting.flag)` / `--no-\(setting.flag)`"
            }
            lines.append("| \(setting.help) | \(flag) | `\(setting.variable)` | \(setting.defaultText) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The settings as `cumulus serve --help` lists them.
    static var helpText: String {
        all.map { setting in
            let flag: String
            switch setting.kind {
            case .value(let placeholder): flag = "--\(setting.flag) \(placeholder)"
            case .switchable: flag = "--[no-]\(setting.flag)"
            }
            let plain = setting.help.replacingOccurrences(of: "`", with: "")
            let fallback = setting.defaultText.replacingOccurrences(of: "`", with: "")
            return "\(flag) (\(setting.variable), default \(fallback)): \(plain)"
        }.joined(separator: "\n")
    }
}
