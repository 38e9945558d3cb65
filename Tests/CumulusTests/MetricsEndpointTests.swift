import CloudStore
import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import cumulus

/// `GET /metrics` on the router `cumulus serve` runs, over a real socket: only for a management
/// token, and its counters move with the requests made. Runs on the backend of the run.
@Suite struct MetricsEndpointTests {
    /// A server of `ServerRoutes` on a temporary store, with an operator's management token and
    /// an app's API token.
    private final class Fixture {
        let temporary: TemporaryStore
        let server: HTTPServer
        let port: Int
        let managementToken: String
        let apiToken: String

        init() throws {
            temporary = try TemporaryStore(controlledClock: false) {
                $0.backups = BackupSchedule(location: .directory($0.dataDirectory + "/backups"))
            }
            let store = temporary.store
            let settings = try ServerSettings.resolve(
                arguments: ["--templates-dir", Repository.templates, "--public-dir", Repository.publicFiles], environment: [:])
            let router = try ServerRoutes.makeRouter(settings: settings, started: .now, store: store)
            var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            http.eventLoopCount = 2
            http.workerCount = 4
            http.accessLog = false
            server = HTTPServer(configuration: http, router: router, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            port = try server.start()
            _ = try store.addOperator("ops", password: "a long operator passphrase")
            managementToken = try store.createManagementToken(for: "ops", name: "prometheus").text
            apiToken = try store.createAPIToken(temporary.container, .development).token
        }

        deinit { server.shutdown(gracePeriod: .seconds(2)) }

        func get(_ target: String, bearer: String? = nil) throws -> TestResponse {
            try HTTPTestClient.send(
                port: port, method: "GET", target: target, headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? [])
        }

        /// The metrics, by sample (`name{labels}`), with the management token.
        func scrape() throws -> [String: Double] {
            let response = try get("/metrics", bearer: managementToken)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            var samples: [String: Double] = [:]
            for line in response.text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                    Issue.record("not a sample: \(line)")
                    continue
                }
                samples[String(line[..<space])] = value
            }
            return samples
        }

        var zonesList: String { "/database/1/\(temporary.container)/development/public/zones/list" }
    }

    @Test func refusedWithoutAManagementTokenAndLeaksNothing() throws {
        let fixture = try Fixture()
        let refusals = [
            try fixture.get("/metrics"),
            try fixture.get("/metrics", bearer: "cumulus_mt_0000000000000000_" + String(repeating: "0", count: 64)),
            try fixture.get("/metrics", bearer: "not a token"),
            try fixture.get("/metrics", bearer: fixture.apiToken),
            try fixture.get("/metrics?ckAPIToken=\(fixture.apiToken)"),
        ]
        for response in refusals {
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate") == "Bearer realm=\"cumulus\"")
            #expect(!response.text.contains("cumulus_http"), "no metric in a refusal")
            #expect(response.text.contains("AUTHENTICATION_FAILED"))
        }
        #expect(try fixture.get("/metrics", bearer: fixture.managementToken).text.contains("cumulus_http_requests_total"))
    }

    /// Every role reads the metrics of the whole server, as it reads usage; an operator limited
    /// to some containers does not, since the figures span every container.
    @Test func everyRoleReadsTheMetricsButNotAnOperatorLimitedToSomeContainers() throws {
        let fixture = try Fixture()
        let store = fixture.temporary.store
        for (name, role) in [("viewer", OperatorRole.viewer), ("developer", .developer)] {
            _ = try store.addOperator(name, password: "a long operator passphrase", role: role)
            let token = try store.createManagementToken(for: name, name: "prometheus").text
            let answer = try fixture.get("/metrics", bearer: token)
            #expect(answer.status == 200 && answer.text.contains("cumulus_http_requests_total"), "\(name)")
        }
        _ = try store.addOperator(
            "limited", password: "a long operator passphrase", role: .owner, containers: [fixture.temporary.container])
        let limited = try fixture.get("/metrics", bearer: try store.createManagementToken(for: "limited", name: "p").text)
        #expect(limited.status == 403)
        #expect(limited.text.contains("ACCESS_DENIED") && limited.text.contains("every container"), "\(limited.text)")
        #expect(!limited.text.contains("cumulus_http"), "no metric in a refusal")
    }

    @Test func countersMoveWithTheRequestsMade() throws {
        let fixture = try Fixture()
        let before = try fixture.scrape()
        for _ in 0..<3 { #expect(try fixture.get(fixture.zonesList + "?ckAPIToken=\(fixture.apiToken)").status == 200) }
        #expect(try fixture.get(fixture.zonesList + "?ckAPIToken=nope").status == 401)
        #expect(try fixture.get("/admin/v1/containers", bearer: fixture.managementToken).status == 200)
        #expect(try fixture.get("/healthz").status == 200)
        let after = try fixture.scrape()

        func moved(_ sample: String) -> Double { (after[sample] ?? 0) - (before[sample] ?? 0) }
        let zones = #"api="cloudkit",operation="zones/list""#
        #expect(moved("cumulus_http_requests_total{\(zones),status=\"2xx\"}") == 3)
        #expect(moved("cumulus_http_requests_total{\(zones),status=\"4xx\"}") == 1)
        #expect(moved("cumulus_http_request_duration_seconds_count{\(zones)}") == 4)
        #expect(moved("cumulus_http_request_duration_seconds_bucket{\(zones),le=\"+Inf\"}") == 4)
        #expect(moved(#"cumulus_http_requests_total{api="management",operation="containers",status="2xx"}"#) == 1)
        #expect(moved(#"cumulus_http_requests_total{api="server",operation="healthz",status="2xx"}"#) == 1)
        #expect(moved(#"cumulus_http_requests_total{api="server",operation="metrics",status="2xx"}"#) == 1, "the first scrape")
        // Each operation's histogram holds exactly its requests, its buckets cumulative.
        for (sample, count) in after where sample.hasPrefix("cumulus_http_request_duration_seconds_count{") {
            let labels = sample.dropFirst("cumulus_http_request_duration_seconds_count{".count).dropLast()
            let byStatus = after.filter { $0.key.hasPrefix("cumulus_http_requests_total{\(labels),status=") }.values.reduce(0, +)
            #expect(byStatus == count, "\(labels)")
            let buckets = HTTPMetrics.latencyBounds.map {
                after["cumulus_http_request_duration_seconds_bucket{\(labels),le=\"\(PrometheusText.format($0))\"}"] ?? -1
            }
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0 <= $1 } && buckets.first! >= 0 && buckets.last! <= count, "\(labels)")
        }
        #expect(after["process_resident_memory_bytes"].map { $0 > 0 } == true)
        #expect(after["process_open_fds"].map { $0 > 0 } == true)
        #expect(after["cumulus_http_connections_open"].map { $0 >= 1 } == true, "the scrape's own connection")
    }

    @Test func storeCountersMoveWithWrites() throws {
        let fixture = try Fixture()
        let before = try fixture.scrape()
        let database = try fixture.temporary.database()
        try database.create("Note", "first")
        try database.create("Note", "second")
        let after = try fixture.scrape()
        func moved(_ sample: String) -> Double { (after[sample] ?? 0) - (before[sample] ?? 0) }
        #expect(moved("cumulus_write_groups_total") == 2)
        #expect(moved("cumulus_write_group_writes_total") == 2)
        #expect(after["cumulus_write_group_largest"].map { $0 >= 1 } == true)
        if TestBackend.current == .postgres {
            #expect(moved("cumulus_postgres_round_trips_total") > 0)
            #expect(after["cumulus_postgres_pool_connections"].map { $0 >= 1 } == true)
            #expect(after["cumulus_sqlite_wal_pages"] == nil)
        } else {
            #expect(after["cumulus_sqlite_wal_pages"].map { $0 > 0 } == true)
            #expect(after["cumulus_sqlite_checkpoints_total"] != nil)
            #expect(after["cumulus_postgres_round_trips_total"] == nil)
        }
        #expect(after["cumulus_last_backup_timestamp_seconds"] == nil, "no backup known")
        // A backup the server takes (as its schedule does) gives the time it finished.
        try fixture.temporary.store.takeBackup()
        let finished = try #require(fixture.temporary.store.lastBackup).finished.timeIntervalSince1970
        let scraped = try #require(try fixture.scrape()["cumulus_last_backup_timestamp_seconds"])
        #expect(abs(scraped - finished) < 0.002, "\(scraped) against \(finished)")
    }

    @Test func limitsHitAreCounted() throws {
        let fixture = try Fixture()
        try fixture.temporary.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 0.01, burst: 1), of: fixture.temporary.container, .development)
        let before = try fixture.scrape()
        let statuses = try (0..<3).map { _ in try fixture.get(fixture.zonesList + "?ckAPIToken=\(fixture.apiToken)").status }
        #expect(statuses == [200, 429, 429])
        let after = try fixture.scrape()
        #expect(
            (after[#"cumulus_limits_hit_total{limit="request_rate"}"#] ?? 0)
                - (before[#"cumulus_limits_hit_total{limit="request_rate"}"#] ?? 0) == 2)
    }
}
