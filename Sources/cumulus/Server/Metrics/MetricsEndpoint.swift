import CloudStore
import HTTPServer
import WebServices

/// `GET /metrics`: the server's metrics in Prometheus' text format (version 0.0.4), for
/// operators only (see ``ServerRoutes``). Everything is read from memory at the scrape: the
/// server's request counters, the store's, the courier's and `/proc`'s; nothing is queried.
struct MetricsEndpoint: Sendable {
    /// The server's request and connection counters.
    let http: HTTPMetrics
    let store: CloudStore
    /// The API, for its courier.
    let api: WebServices

    /// The operation metrics count `GET /metrics` itself as.
    static let operation = RouteOperation(api: ServerRoutes.metricsAPI, name: "metrics")

    /// Answers a scrape.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, bytes: render())
        response.headers["Content-Type"] = PrometheusText.contentType
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// The whole document.
    func render() -> [UInt8] {
        var text = PrometheusText()
        let served = http.snapshot()
        let stored = store.metrics()
        text.family("cumulus_build_info", .gauge, help: "The running version of Cumulus, in its label.")
        text.sample("cumulus_build_info", ["version": CumulusVersion.current], 1)
        Self.renderRequests(served, to: &text)
        text.single("cumulus_http_connections_open", .gauge, help: "HTTP connections open now.", Double(served.openConnections))
        Self.renderLimits(served, stored, to: &text)
        Self.renderStore(stored, to: &text)
        Self.renderCourier(api.courierMetrics, stored, to: &text)
        Self.renderProcess(ProcessFacts.current(), to: &text)
        return text.bytes
    }

    /// Requests by operation and status class, and their latency: only operations and status
    /// classes that were answered at least once, as Prometheus' client libraries do for labels.
    private static func renderRequests(_ served: HTTPMetricsSnapshot, to text: inout PrometheusText) {
        let answered = served.operations.filter { $0.count > 0 }
        text.family("cumulus_http_requests_total", .counter, help: "HTTP requests answered, by operation and status class.")
        for operation in answered {
            for (index, count) in operation.responsesByStatusClass.enumerated() where count > 0 {
                text.sample(
                    "cumulus_http_requests_total",
                    ["api": operation.operation.api, "operation": operation.operation.name, "status": "\(index + 1)xx"], Double(count))
            }
        }
        let name = "cumulus_http_request_duration_seconds"
        text.family(name, .histogram, help: "Time from a request's head to its answer's, by operation.")
        for operation in answered {
            let labels = [(key: "api", value: operation.operation.api), (key: "operation", value: operation.operation.name)]
            for (bound, count) in zip(HTTPMetrics.latencyBounds, operation.latencyBuckets) {
                text.sample(name + "_bucket", labels + [(key: "le", value: PrometheusText.format(bound))], Double(count))
            }
            text.sample(name + "_bucket", labels + [(key: "le", value: "+Inf")], Double(operation.count))
            text.sample(name + "_sum", labels, operation.latencySeconds)
            text.sample(name + "_count", labels, Double(operation.count))
        }
    }

    /// Connections and requests refused at the server's and the store's limits.
    private static func renderLimits(_ served: HTTPMetricsSnapshot, _ stored: StoreMetrics, to text: inout PrometheusText) {
        text.family("cumulus_limits_hit_total", .counter, help: "Connections and requests refused at a limit, by limit.")
        text.sample("cumulus_limits_hit_total", ["limit": "connections"], Double(served.connectionsRefusedAtServerCap))
        text.sample("cumulus_limits_hit_total", ["limit": "connections_per_client"], Double(served.connectionsRefusedAtClientCap))
        text.sample("cumulus_limits_hit_total", ["limit": "worker_queue"], Double(served.requestsRefusedBusy))
        for limit in StoreLimit.allCases {
            text.sample("cumulus_limits_hit_total", ["limit": limit.rawValue], Double(stored.refusals[limit] ?? 0))
        }
    }

    /// Write groups, and the backend's own: SQLite's logs or PostgreSQL's pool.
    private static func renderStore(_ stored: StoreMetrics, to text: inout PrometheusText) {
        text.single(
            "cumulus_write_groups_total", .counter,
            help: "Write transactions committed by the environments' writers, each a group of writes.",
            Double(stored.writeGroups))
        text.single(
            "cumulus_write_group_writes_total", .counter, help: "Writes run by those groups (over the groups: their mean size).",
            Double(stored.writeGroupWrites))
        text.single("cumulus_write_group_largest", .gauge, help: "The most writes one group ran.", Double(stored.largestWriteGroup))
        text.single(
            "cumulus_writes_waiting", .gauge, help: "Writes submitted and not yet taken into a group.", Double(stored.writesWaiting))
        if let pages = stored.logPages {
            text.single(
                "cumulus_sqlite_wal_pages", .gauge, help: "Pages in the SQLite files' write-ahead logs after their last commits.",
                Double(pages))
        }
        if let checkpoints = stored.checkpoints {
            text.single(
                "cumulus_sqlite_checkpoints_total", .counter, help: "Checkpoints of the SQLite files' write-ahead logs.",
                Double(checkpoints))
        }
        if let pool = stored.poolConnections {
            text.single(
                "cumulus_postgres_pool_connections", .gauge, help: "Connections of the PostgreSQL pool, idle or in use.", Double(pool.open))
            text.single(
                "cumulus_postgres_pool_connections_in_use", .gauge, help: "Connections of the PostgreSQL pool in use.", Double(pool.inUse))
        }
        if let roundTrips = stored.roundTrips {
            text.single("cumulus_postgres_round_trips_total", .counter, help: "Round trips to PostgreSQL.", Double(roundTrips))
        }
        if let lastBackup = stored.lastBackup {
            text.single(
                "cumulus_last_backup_timestamp_seconds", .gauge, help: "When the last backup this process knows of finished.",
                Double(lastBackup) / 1000)
        }
    }

    /// Notifications queued and handed out, and the courier's waiters.
    private static func renderCourier(_ courier: CourierMetrics, _ stored: StoreMetrics, to text: inout PrometheusText) {
        text.single(
            "cumulus_notifications_queued_total", .counter, help: "Notifications committed to push tokens' queues.",
            Double(stored.notificationsQueued))
        text.single(
            "cumulus_courier_notifications_delivered_total", .counter, help: "Notifications the web courier handed to a poll or a stream.",
            Double(courier.delivered))
        text.single("cumulus_courier_polls_waiting", .gauge, help: "Web courier long polls waiting now.", Double(courier.pollsWaiting))
        text.single("cumulus_courier_streams_open", .gauge, help: "Web courier event streams open now.", Double(courier.streamsOpen))
    }

    /// Prometheus' standard process metrics.
    private static func renderProcess(_ facts: ProcessFacts, to text: inout PrometheusText) {
        if let value = facts.cpuSeconds {
            text.single("process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.", value)
        }
        if let value = facts.residentBytes {
            text.single("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.", value)
        }
        if let value = facts.startTime {
            text.single("process_start_time_seconds", .gauge, help: "Start time of the process since unix epoch in seconds.", value)
        }
        if let value = facts.openDescriptors {
            text.single("process_open_fds", .gauge, help: "Number of open file descriptors.", value)
        }
        if let value = facts.maximumDescriptors {
            text.single("process_max_fds", .gauge, help: "Maximum number of open file descriptors.", value)
        }
    }
}
