@testable import cumulus
import Testing

@Suite struct ServerSettingsTests {
    @Test func usesDefaultsWithoutFlagsOrEnvironment() throws {
        let settings = try ServerSettings.resolve(options: ServeOptions(), environment: [:])
        #expect(settings.http.host == "127.0.0.1")
        #expect(settings.http.port == 8080)
        #expect(settings.dataDirectory == "./data")
        #expect(settings.publicDirectory == "./Public")
        #expect(settings.http.maxHeaderBytes == 16 * 1024)
        #expect(settings.http.maxBodyBytes == 64 * 1024 * 1024)
        #expect(settings.http.headerReadTimeout == .seconds(10))
        #expect(settings.http.idleTimeout == .seconds(60))
        #expect(settings.http.maxConnections == 10_000)
        #expect(settings.listeningURL == "http://127.0.0.1:8080")
    }

    @Test func flagsWinOverEnvironmentWhichWinsOverDefaults() throws {
        let environment = [
            "CUMULUS_HOST": "0.0.0.0", "CUMULUS_PORT": "9000", "CUMULUS_DATA_DIR": "/srv/data",
            "CUMULUS_MAX_BODY_BYTES": "2MiB", "CUMULUS_IDLE_TIMEOUT": "90s", "CUMULUS_HEADER_READ_TIMEOUT": "500ms",
            "CUMULUS_MAX_CONNECTIONS": "123", "CUMULUS_ACCESS_LOG": "off", "CUMULUS_LOG_LEVEL": "debug",
        ]
        var options = ServeOptions()
        options.port = 8181
        options.maxBodyBytes = "16KiB"
        let settings = try ServerSettings.resolve(options: options, environment: environment)
        #expect(settings.http.host == "0.0.0.0")
        #expect(settings.http.port == 8181)
        #expect(settings.dataDirectory == "/srv/data")
        #expect(settings.http.maxBodyBytes == 16 * 1024)
        #expect(settings.http.idleTimeout == .seconds(90))
        #expect(settings.http.headerReadTimeout == .milliseconds(500))
        #expect(settings.http.maxConnections == 123)
        #expect(settings.http.accessLog == false)
        #expect(settings.logLevel == .debug)
    }

    @Test func rejectsUnreadableValues() {
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(options: ServeOptions(), environment: ["CUMULUS_PORT": "eighty"])
        }
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(options: ServeOptions(), environment: ["CUMULUS_IDLE_TIMEOUT": "soon"])
        }
        var options = ServeOptions()
        options.maxHeaderBytes = "lots"
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(options: options, environment: [:])
        }
    }
}
