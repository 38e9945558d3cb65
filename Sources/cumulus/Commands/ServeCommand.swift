import ArgumentParser
import CloudStore
import Foundation
import HTTPServer
import Logging

/// `cumulus serve`: runs the HTTP server until SIGTERM or SIGINT.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Cumulus server.",
        discussion: """
        Flags win over CUMULUS_* environment variables (CUMULUS_HOST, CUMULUS_PORT, CUMULUS_DATA_DIR, \
        CUMULUS_PUBLIC_DIR, CUMULUS_TEMPLATES_DIR, CUMULUS_PUBLIC_URL, CUMULUS_LOG_LEVEL, CUMULUS_MAX_BODY_BYTES, \
        CUMULUS_IDLE_TIMEOUT, …), \
        which win over the defaults. Sizes take KiB/MiB/GiB suffixes, durations ms/s/m/h. \
        Files of the public directory are served under /static/.
        """
    )

    @Option(help: "The address to listen on (an IP address or localhost). [default: 127.0.0.1]")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one. [default: 8080]")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Where databases and assets are kept. [default: ./data]")
    var dataDirectory: String?

    @Option(name: .customLong("public-dir"), help: "The folder served under /static/. [default: ./Public]")
    var publicDirectory: String?

    @Option(name: .customLong("templates-dir"), help: "The folder of the pages' templates. [default: ./Templates]")
    var templatesDirectory: String?

    @Option(name: .customLong("public-url"), help: "The URL clients reach this server at, used in links. [default: http://<Host header>]")
    var publicURL: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. [default: info]")
    var logLevel: String?

    @Option(help: "Event-loop threads. [default: one per core]")
    var eventLoops: Int?

    @Option(help: "Worker threads for handlers. [default: 4 per core, at least 4]")
    var workers: Int?

    @Option(help: "Requests that may wait for a worker before 503. [default: 10000]")
    var workerQueue: Int?

    @Option(help: "Limit of the request line plus headers (431 above). [default: 16KiB]")
    var maxHeaderBytes: String?

    @Option(help: "Limit of a request body (413 above). [default: 64MiB]")
    var maxBodyBytes: String?

    @Option(help: "Time to receive a request head. [default: 10s]")
    var headerReadTimeout: String?

    @Option(help: "Time allowed between reads of a request body. [default: 30s]")
    var bodyReadTimeout: String?

    @Option(help: "Time an idle keep-alive connection stays open. [default: 60s]")
    var idleTimeout: String?

    @Option(help: "Time a client may take to accept more response bytes. [default: 30s]")
    var writeTimeout: String?

    @Option(help: "Most connections open at once. [default: 10000]")
    var maxConnections: Int?

    @Option(help: "Smallest body that is gzip-compressed. [default: 1KiB]")
    var gzipMinBytes: String?

    @Option(help: "Heartbeat interval of server-sent-event streams. [default: 15s]")
    var eventStreamHeartbeat: String?

    @Option(help: "Time in-flight requests get to finish at shutdown. [default: 10s]")
    var shutdownGrace: String?

    @Flag(inversion: .prefixedNo, help: "Log one line per request. [default: on]")
    var accessLog: Bool?

    @Option(help: "normal (commits survive a crash) or full (they also survive power loss). [default: normal]")
    var synchronous: String?

    @Flag(inversion: .prefixedNo, help: "Seed the demo container iCloud.com.example.Notes on first start. [default: on]")
    var demo: Bool?

    /// The flags as plain values, for `ServerSettings.resolve`.
    var options: ServeOptions {
        ServeOptions(
            host: host, port: port, dataDirectory: dataDirectory, publicDirectory: publicDirectory,
            templatesDirectory: templatesDirectory, publicURL: publicURL,
            logLevel: logLevel, eventLoops: eventLoops, workers: workers, workerQueue: workerQueue,
            maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes, headerReadTimeout: headerReadTimeout,
            bodyReadTimeout: bodyReadTimeout, idleTimeout: idleTimeout, writeTimeout: writeTimeout,
            maxConnections: maxConnections, gzipMinBytes: gzipMinBytes, eventStreamHeartbeat: eventStreamHeartbeat,
            shutdownGrace: shutdownGrace, accessLog: accessLog, synchronous: synchronous, demo: demo
        )
    }

    func run() throws {
        let settings: ServerSettings
        do {
            settings = try ServerSettings.resolve(options: options, environment: ProcessInfo.processInfo.environment)
        } catch let error as ServerSettings.InvalidSetting {
            throw ValidationError(error.description)
        }
        let started = ContinuousClock.now

        // One buffered writer for every logger: the access log costs no write(2) per line.
        let writer = BufferedLogWriter(descriptor: 1)
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, writer: writer, logLevel: level) }
        defer { writer.stop() }
        let logger = Logger(label: "cumulus.http")

        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: settings.publicDirectory, isDirectory: &isFolder) || !isFolder.boolValue {
            logger.warning("public directory \(settings.publicDirectory) not found: /static/ will answer 404")
        }
        let store = try CloudStore(configuration: CloudStoreConfiguration(
            dataDirectory: settings.dataDirectory, synchronous: settings.synchronous))
        let demo = settings.demo ? try DemoContainer.seedIfFirstStart(store) : nil
        let router = try ServerRoutes.makeRouter(settings: settings, started: started, store: store)
        let server = HTTPServer(configuration: settings.http, router: router, logger: logger)
        var bound = settings
        bound.http.port = try server.start()
        // Written straight to the descriptor so it appears at once, before any log line.
        let banner = "Cumulus \(CumulusVersion.current) listening on \(bound.listeningURL)\n"
            + "  data: \(settings.dataDirectory)  static files: \(settings.publicDirectory) under /static/"
            + "  templates: \(settings.templatesDirectory)\n"
        FileHandle.standardOutput.write(Data((banner + (demo.map { $0.banner(baseURL: bound.listeningURL) } ?? "")).utf8))
        server.waitForTerminationSignal()
        logger.notice("stopped")
    }
}
