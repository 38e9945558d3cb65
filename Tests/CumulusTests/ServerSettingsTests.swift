import CloudStore
import Foundation
import Testing

@testable import cumulus

@Suite struct ServerSettingsTests {
    @Test func usesDefaultsWithoutFlagsOrEnvironment() throws {
        let settings = try ServerSettings.resolve(arguments: [], environment: [:])
        #expect(settings.http.host == "127.0.0.1")
        #expect(settings.http.port == 8080)
        #expect(settings.dataDirectory == "./data")
        #expect(settings.publicDirectory == "./Public")
        #expect(settings.http.maxHeaderBytes == 16 * 1024)
        #expect(settings.http.maxBodyBytes == 1024 * 1024)
        #expect(settings.maxAPIBodyBytes == 4 * 1024 * 1024)
        #expect(settings.http.headerReadTimeout == .seconds(10))
        #expect(settings.http.idleTimeout == .seconds(60))
        #expect(settings.http.maxConnections == 10_000)
        #expect(settings.http.maxConnectionsPerClient == 256)
        #expect(settings.http.minimumBodyBytesPerSecond == 16 * 1024)
        #expect(settings.demo && settings.http.accessLog && settings.healthzOnEventLoop)
        #expect(settings.requestLogRetention == .seconds(7 * 86_400))
        #expect(settings.listeningURL == "http://127.0.0.1:8080")
    }

    @Test func flagsWinOverEnvironmentWhichWinsOverDefaults() throws {
        let environment = [
            "CUMULUS_HOST": "0.0.0.0", "CUMULUS_PORT": "9000", "CUMULUS_DATA_DIR": "/srv/data",
            "CUMULUS_MAX_BODY_BYTES": "2MiB", "CUMULUS_IDLE_TIMEOUT": "90s", "CUMULUS_HEADER_READ_TIMEOUT": "500ms",
            "CUMULUS_MAX_CONNECTIONS": "123", "CUMULUS_ACCESS_LOG": "off", "CUMULUS_LOG_LEVEL": "debug", "CUMULUS_DEMO": "no",
            "CUMULUS_MAX_CONNECTIONS_PER_CLIENT": "7", "CUMULUS_REQUEST_LOG_RETENTION": "30d",
        ]
        let settings = try ServerSettings.resolve(
            arguments: ["--port", "8181", "--max-body-bytes=16KiB", "--demo", "--no-access-log", "--min-body-rate", "1KiB"],
            environment: environment)
        #expect(settings.http.host == "0.0.0.0")
        #expect(settings.http.port == 8181)
        #expect(settings.dataDirectory == "/srv/data")
        #expect(settings.http.maxBodyBytes == 16 * 1024)
        #expect(settings.http.idleTimeout == .seconds(90))
        #expect(settings.http.headerReadTimeout == .milliseconds(500))
        #expect(settings.http.maxConnections == 123)
        #expect(settings.http.maxConnectionsPerClient == 7)
        #expect(settings.http.minimumBodyBytesPerSecond == 1024)
        #expect(settings.http.accessLog == false)
        #expect(settings.demo == true)
        #expect(settings.logLevel == .debug)
        #expect(settings.requestLogRetention == .seconds(30 * 86_400))
    }

    @Test func allowedHostsComeFromTheFlagOrTheEnvironment() throws {
        #expect(try ServerSettings.resolve(arguments: [], environment: [:]).allowedHosts.isEmpty)
        let fromEnvironment = try ServerSettings.resolve(
            arguments: [], environment: ["CUMULUS_ALLOWED_HOSTS": "Cloud.example.com,10.0.0.5:8080"])
        #expect(fromEnvironment.allowedHosts == ["cloud.example.com", "10.0.0.5:8080"])
        let flag = try ServerSettings.resolve(
            arguments: ["--allowed-hosts", "a.example"], environment: ["CUMULUS_ALLOWED_HOSTS": "b.example"])
        #expect(flag.allowedHosts == ["a.example"])
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(arguments: ["--allowed-hosts", "evil.example/path"], environment: [:])
        }
    }

    @Test func trustedProxiesComeFromTheFlagOrTheEnvironmentAndABadBlockIsNamed() throws {
        #expect(try ServerSettings.resolve(arguments: [], environment: [:]).http.trustedProxies.isEmpty)
        let fromEnvironment = try ServerSettings.resolve(
            arguments: [], environment: ["CUMULUS_TRUSTED_PROXIES": "127.0.0.1/32, fd00::/8"])
        #expect(fromEnvironment.http.trustedProxies.description == "127.0.0.1/32,fd00::/8")
        let flag = try ServerSettings.resolve(
            arguments: ["--trusted-proxies", "10.0.0.0/8"], environment: ["CUMULUS_TRUSTED_PROXIES": "127.0.0.1/32"])
        #expect(flag.http.trustedProxies.description == "10.0.0.0/8")
        #expect {
            try ServerSettings.resolve(arguments: ["--trusted-proxies", "10.0.0.0/8,10.0.0.1/33"], environment: [:])
        } throws: { error in
            "\(error)".contains("invalid value '10.0.0.0/8,10.0.0.1/33' for --trusted-proxies")
                && "\(error)".contains("'10.0.0.1/33' has a bad prefix length")
        }
        #expect {
            try ServerSettings.resolve(arguments: [], environment: ["CUMULUS_TRUSTED_PROXIES": "nginx"])
        } throws: { error in
            "\(error)".contains("CUMULUS_TRUSTED_PROXIES") && "\(error)".contains("'nginx' is not an IPv4 or IPv6 address")
        }
    }

    @Test func servingBeyondLoopbackWithoutAPublicURLOrAllowedHostsIsWarnedOf() throws {
        #expect(try ServerSettings.resolve(arguments: [], environment: [:]).linkHostWarning == nil)
        let everywhere = try ServerSettings.resolve(arguments: ["--host", "0.0.0.0", "--port", "8080"], environment: [:])
        let warning = try #require(everywhere.linkHostWarning)
        #expect(warning.contains("http://127.0.0.1:8080"))
        #expect(
            try ServerSettings.resolve(arguments: ["--host", "0.0.0.0", "--allowed-hosts", "cloud.example.com"], environment: [:])
                .linkHostWarning == nil)
        #expect(
            try ServerSettings.resolve(arguments: ["--host", "0.0.0.0", "--public-url", "https://cloud.example.com"], environment: [:])
                .linkHostWarning == nil)
    }

    @Test func rejectsUnreadableValuesAndUnknownFlags() {
        for (arguments, environment) in [
            ([String](), ["CUMULUS_PORT": "eighty"]), ([], ["CUMULUS_IDLE_TIMEOUT": "soon"]), (["--max-header-bytes", "lots"], [:]),
            (["--bogus"], [:]), (["--port"], [:]), (["extra"], [:]), (["--no-port"], [:]),
            (["--request-log-retention", "10m"], [:]), ([], ["CUMULUS_REQUEST_LOG_RETENTION": "500d"]),
        ] {
            #expect(throws: ServerSettings.InvalidSetting.self, "\(arguments) \(environment)") {
                try ServerSettings.resolve(arguments: arguments, environment: environment)
            }
        }
    }

    @Test func theRequestLogIsBoundedBySizeAndTheAuditTrailKeptApart() throws {
        let defaults = try ServerSettings.resolve(arguments: [], environment: [:])
        #expect(defaults.requestLogMaxSize == 1 << 30)
        #expect(defaults.requestLogSampleReads == nil)
        #expect(defaults.auditRetention == .seconds(400 * 86_400))
        let set = try ServerSettings.resolve(
            arguments: ["--request-log-max-size", "256KiB", "--audit-retention", "30d"],
            environment: ["CUMULUS_REQUEST_LOG_SAMPLE_READS": "50"])
        #expect(set.requestLogMaxSize == 256 << 10)
        #expect(set.requestLogSampleReads == 50)
        #expect(set.auditRetention == .seconds(30 * 86_400))
        #expect(try ServerSettings.resolve(arguments: ["--request-log-max-size", "0"], environment: [:]).requestLogMaxSize == nil)
        for arguments in [["--request-log-max-size", "1KiB"], ["--request-log-sample-reads", "-1"], ["--audit-retention", "1h"]] {
            #expect(throws: ServerSettings.InvalidSetting.self, "\(arguments)") {
                try ServerSettings.resolve(arguments: arguments, environment: [:])
            }
        }
    }

    @Test func backupSettingsChooseWhereHowOftenAndHowMany() throws {
        let defaults = try ServerSettings.resolve(arguments: ["--data-dir", "/srv/cumulus"], environment: [:])
        #expect(defaults.backups == BackupSchedule(location: .directory("/srv/cumulus/backups"), interval: nil, keep: 7))
        let set = try ServerSettings.resolve(
            arguments: ["--backup-schedule", "6h", "--backup-keep", "3", "--backup-to", "/backups"], environment: [:])
        #expect(set.backups == BackupSchedule(location: .directory("/backups"), interval: .seconds(6 * 3600), keep: 3))
        let keys = ["CUMULUS_ASSETS_ACCESS_KEY_ID": "key", "CUMULUS_ASSETS_SECRET_ACCESS_KEY": "secret"]
        let bucket = try ServerSettings.resolve(
            arguments: ["--backup-to", "s3://cumulus-backups/nightly", "--assets-endpoint", "http://127.0.0.1:9000"], environment: keys)
        guard case .bucket(let configuration, let prefix) = bucket.backups.location else {
            Issue.record("not a bucket: \(bucket.backups.location)")
            return
        }
        #expect(configuration.bucket == "cumulus-backups" && configuration.port == 9000 && prefix == "nightly/")
        for (arguments, environment) in [
            (["--backup-schedule", "10s"], [:]), (["--backup-keep", "0"], [:]), (["--backup-to", "s3://cumulus-backups/x"], keys),
            (["--backup-to", "s3://cumulus-backups", "--assets-endpoint", "http://127.0.0.1:9000"], [:]),
        ] as [([String], [String: String])] {
            #expect(throws: ServerSettings.InvalidSetting.self, "\(arguments)") {
                try ServerSettings.resolve(arguments: arguments, environment: environment)
            }
        }
    }

    @Test func theREADMEShowsTheSettingsAsTheyAreDeclared() throws {
        let readme = try String(contentsOfFile: Self.repository + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- settings: generated from ServeSetting.all -->\n"))
        let end = try #require(readme.range(of: "<!-- /settings -->", range: start.upperBound..<readme.endIndex))
        #expect(
            String(readme[start.upperBound..<end.lowerBound]) == ServeSetting.markdownTable,
            "The README's settings table differs from ServeSetting.all; paste:\n\(ServeSetting.markdownTable)")
    }

    @Test func everySettingHasItsOwnFlagAndVariable() {
        #expect(Set(ServeSetting.all.map(\.flag)).count == ServeSetting.all.count)
        #expect(Set(ServeSetting.all.map(\.variable)).count == ServeSetting.all.count)
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
