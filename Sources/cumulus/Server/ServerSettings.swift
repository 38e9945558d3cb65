import CloudStore
import Foundation
import HTTPServer
import Logging

/// Everything `cumulus serve` runs with, resolved once at start: a flag wins over its
/// `CUMULUS_*` environment variable, which wins over the default. The settings themselves are
/// declared in ``ServeSetting/all``.
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
    /// The URL clients reach the server at (behind a proxy, say), used in links; `nil` uses
    /// `http://<Host>` when the `Host` names the listen address or one of ``allowedHosts``, else
    /// the listen address.
    var publicURL: String?
    /// `--allowed-hosts`: further `Host` values links may be built on, in lower case.
    var allowedHosts: [String] = []
    /// The lowest level logged.
    var logLevel = Logger.Level.info
    /// Whether `/healthz` runs on the event loop (the default) or, for measuring the worker
    /// pool's cost, on a worker (`CUMULUS_HEALTHZ_ON_EVENT_LOOP=false`).
    var healthzOnEventLoop = true
    /// How durable commits are: `normal` survives a crash of the process, `full` also power loss.
    var synchronous = SynchronousMode.normal
    /// Whether a first start (no containers yet) seeds the demo container.
    var demo = true
    /// How long the request log keeps a call.
    var requestLogRetention = Duration.seconds(7 * 86_400)
    /// `--request-log-max-size`: the most bytes the request log may take; `nil` for no bound.
    var requestLogMaxSize: Int64? = 1 << 30
    /// `--request-log-sample-reads`: successful reads kept per second; `nil` keeps every call.
    var requestLogSampleReads: Int?
    /// `--trace-sample`: the share of API requests whose allowed access decisions the request
    /// log keeps, besides every refusal's.
    var traceSample = RequestTraceSampler.defaultRate
    /// `--audit-retention`: how long the audit trail keeps an operator action.
    var auditRetention = Duration.seconds(400 * 86_400)
    /// How long change feeds keep tombstones.
    var tombstoneRetention = Duration.seconds(30 * 86_400)
    /// `--history-retention`: how long replaced record versions and the trash are kept.
    var historyRetention = Duration.seconds(30 * 86_400)
    /// The largest body a CloudKit Web Services request may have.
    var maxAPIBodyBytes = 4 * 1024 * 1024
    /// The largest asset file.
    var maxAssetBytes = 50 * 1024 * 1024
    /// `--assets`: a directory or `s3://BUCKET`; `nil` keeps blobs in the data directory.
    var assets: String?
    /// `--assets-endpoint`: the S3 server of a bucket.
    var assetsEndpoint: String?
    /// `--assets-region`: the region S3 requests are signed for.
    var assetsRegion: String?
    /// Where asset blobs are kept, resolved from the three above and the keys' variables.
    var assetStorage = AssetStorage.dataDirectory
    /// `--database-url`: SQLite in the data directory, or a PostgreSQL database.
    var database = DatabaseLocation.dataDirectory
    /// `--backup-to`: a directory or `s3://BUCKET/PREFIX`; `nil`: `backups` in the data directory.
    var backupTo: String?
    /// `--backup-schedule`: how long between two backups the server takes; `nil`: none.
    var backupInterval: Duration?
    /// `--backup-keep`: how many backups are kept.
    var backupKeep = 7
    /// Where backups go, how often and how many, resolved from the three above.
    var backups = BackupSchedule(location: .directory("./data/backups"))

    /// A problem with a flag or an environment variable.
    struct InvalidSetting: Error, CustomStringConvertible {
        var name: String
        var value: String
        var expected: String
        var description: String {
            expected.hasPrefix("a flag of")
                ? "unknown argument '\(name)': expected \(expected)"
                : "invalid value '\(value)' for \(name): expected \(expected)"
        }
    }

    /// Resolves the settings from `serve`'s arguments, then `environment`, then defaults.
    /// - Throws: `InvalidSetting` naming the first flag or variable that cannot be read, or an
    ///   argument that is no flag of `serve`.
    static func resolve(arguments: [String], environment: [String: String]) throws -> ServerSettings {
        let given = try flags(in: arguments)
        var settings = ServerSettings()
        for setting in ServeSetting.all {
            if let value = given[setting.flag] {
                try setting.apply(value, &settings, "--\(setting.flag)")
            } else if let value = environment[setting.variable], !value.isEmpty {
                try setting.apply(value, &settings, setting.variable)
            }
        }
        do {
            settings.assetStorage = try AssetStorageSetting.resolve(
                location: settings.assets, endpoint: settings.assetsEndpoint, region: settings.assetsRegion, environment: environment,
                endpointServesBackups: settings.backupTo?.lowercased().hasPrefix("s3://") == true)
        } catch {
            throw InvalidSetting(name: "--assets", value: settings.assets ?? "", expected: error.description)
        }
        do {
            let location = try AssetStorageSetting.backupLocation(
                settings.backupTo ?? settings.dataDirectory + "/backups", endpoint: settings.assetsEndpoint, region: settings.assetsRegion,
                environment: environment)
            settings.backups = BackupSchedule(location: location, interval: settings.backupInterval, keep: settings.backupKeep)
        } catch {
            throw InvalidSetting(name: "--backup-to", value: settings.backupTo ?? "", expected: error.description)
        }
        return settings
    }

    /// The values of `serve`'s flags: `--name VALUE`, `--name=VALUE`, and `--name`/`--no-name`
    /// for switches (as `true`/`false`).
    static func flags(in arguments: [String]) throws -> [String: String] {
        let byFlag = Dictionary(uniqueKeysWithValues: ServeSetting.all.map { ($0.flag, $0) })
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw InvalidSetting(name: argument, value: argument, expected: "a flag of `cumulus serve --help`")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let setting = byFlag[name] {
                switch setting.kind {
                case .value:
                    if let inline {
                        values[name] = inline
                    } else {
                        guard index < arguments.count else { throw InvalidSetting(name: argument, value: "", expected: "a value after it") }
                        values[name] = arguments[index]
                        index += 1
                    }
                case .switchable:
                    values[name] = inline ?? "true"
                }
            } else if name.hasPrefix("no-"), let setting = byFlag[String(name.dropFirst(3))], case .switchable = setting.kind, inline == nil
            {
                values[setting.flag] = "false"
            } else {
                throw InvalidSetting(name: argument, value: argument, expected: "a flag of `cumulus serve --help`")
            }
        }
        return values
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

    /// A warning for a server that listens beyond loopback with neither a public URL nor allowed
    /// hosts: clients elsewhere reach it under a name it will not put into links, so the links it
    /// hands out (sign-in, courier, assets) point at its loopback address; `nil` otherwise.
    var linkHostWarning: String? {
        guard publicURL == nil, allowedHosts.isEmpty else { return nil }
        let bare = http.host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        guard !(bare == "localhost" || bare.hasPrefix("127.") || bare == "::1") else { return nil }
        return "listening on \(http.host) without --public-url or --allowed-hosts: links the server hands out "
            + "(sign-in, courier, assets) name \(ListenAddress(host: http.host, port: http.port).url), not the Host clients send"
    }

    /// The URL to print at start.
    var listeningURL: String {
        let host = http.host.contains(":") && !http.host.hasPrefix("[") ? "[\(http.host)]" : http.host
        return "http://\(host):\(http.port)"
    }
}
