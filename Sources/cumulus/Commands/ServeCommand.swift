import ArgumentParser
import CloudStore
import Foundation
import HTTPServer
import Logging
import WebServices

/// `cumulus serve`: runs the HTTP server until SIGTERM or SIGINT.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Cumulus server.",
        discussion: """
            Each setting is a flag, else its CUMULUS_* environment variable, else its default. Sizes take \
            KiB/MiB/GiB suffixes, durations ms/s/m/h. Files of the public directory are served under /static/.

            """ + ServeSetting.helpText
    )

    @Argument(parsing: .captureForPassthrough, help: "Settings, as listed below: --name VALUE, --name=VALUE, --switch or --no-switch.")
    var arguments: [String] = []

    func run() throws {
        // The arguments are read here rather than by the parser, so asking for help is too.
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Self.helpMessage())
            return
        }
        let settings: ServerSettings
        do {
            settings = try ServerSettings.resolve(arguments: arguments, environment: ProcessInfo.processInfo.environment)
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
        var configuration = CloudStoreConfiguration(dataDirectory: settings.dataDirectory, synchronous: settings.synchronous)
        configuration.requestLogRetention = Self.milliseconds(settings.requestLogRetention)
        configuration.auditRetention = Self.milliseconds(settings.auditRetention)
        configuration.requestLogMaximumBytes = settings.requestLogMaxSize
        configuration.requestLogSampledReadsPerSecond = settings.requestLogSampleReads
        configuration.requestLogWarning = { logger.warning("\($0)") }
        configuration.tombstoneRetention = Self.milliseconds(settings.tombstoneRetention)
        configuration.historyRetention = Self.milliseconds(settings.historyRetention)
        configuration.maximumAssetBytes = settings.maxAssetBytes
        configuration.assetStorage = settings.assetStorage
        configuration.database = settings.database
        configuration.backups = settings.backups
        configuration.backups?.programVersion = CumulusVersion.current
        #if CUMULUS_NEGATIVE_CONTROLS
            // Deliberately not a documented setting, and absent from release builds: it exists so
            // that the end-to-end checker can be shown to catch the skipped commits this numbering causes.
            if ProcessInfo.processInfo.environment["CUMULUS_UNSAFE_NAIVE_CHANGE_NUMBERING"] == "1" {
                configuration.unsafeNaiveChangeNumbering = true
                logger.critical("CUMULUS_UNSAFE_NAIVE_CHANGE_NUMBERING is set: change feeds may skip commits; for tests only")
            }
        #endif
        let store = try CloudStore(configuration: configuration)
        do {
            try store.checkAssetStore()
        } catch CloudStoreError.tryAgainLater(let reason) {
            // The object store may be starting alongside: uploads fail until it answers.
            logger.warning("asset store \(settings.assetStorage): \(reason)")
        } catch {
            throw ValidationError("The asset store \(settings.assetStorage) cannot be used: \(error)")
        }
        let maintenance = Maintenance(store: store, logger: logger)
        maintenance.start()
        defer { maintenance.stop() }
        let backups = ScheduledBackups(store: store, logger: logger)
        backups.start(every: settings.backups.interval)
        defer { backups.stop() }
        for warning in store.permissionWarnings() { logger.warning("\(warning)") }
        if let warning = settings.linkHostWarning { logger.warning("\(warning)") }
        let demo = settings.demo ? try DemoContainer.seedIfFirstStart(store) : nil
        let router = try ServerRoutes.makeRouter(settings: settings, started: started, store: store)
        var http = settings.http
        http.redactedPathPrefixes = WebServices.credentialPathPrefixes
        let server = HTTPServer(configuration: http, router: router, logger: logger)
        var bound = settings
        bound.http.port = try server.start()
        // Written straight to the descriptor so it appears at once, before any log line.
        let banner =
            "Cumulus \(CumulusVersion.current) listening on \(bound.listeningURL)\n"
            + "  data: \(settings.dataDirectory)  database: \(settings.database)  assets: \(settings.assetStorage)  static files: \(settings.publicDirectory) under /static/"
            + "  templates: \(settings.templatesDirectory)\n"
        let operatorHint = try store.operators().isEmpty ? "  " + OperatorsCommand.firstOperatorHint + "\n" : ""
        FileHandle.standardOutput.write(Data((banner + operatorHint + (demo.map { $0.banner(baseURL: bound.listeningURL) } ?? "")).utf8))
        server.waitForTerminationSignal()
        // The other processes take this one's share of the request rates at once.
        store.stopHeartbeat()
        logger.notice("stopped")
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }
}
