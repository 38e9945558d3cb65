import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// The request log of a container's environment: a table filtered by time range, operation,
/// user, database, status and errors only, paged; export of the filtered log as JSON lines and
/// CSV; and a live tail over server-sent events that keeps the filters.
///
/// Under `/console/containers/C/ENV/logs`: `GET`, `GET /export?format=jsonl|csv`, `GET /tail`,
/// and `GET /requests/ID`, one call's detail.
struct LogsPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render; `console.log-row` is a row of the list and of the live tail alike.
    static let templates = ["console.logs", "console.log-row", "console.log-entry"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/logs"
        return [
            .get(base) { request in try pages.list(request) },
            .get(base + "/export") { request in try pages.export(request) },
            .get(base + "/tail") { request in try pages.tail(request) },
            .get(base + "/requests/:id") { request in try pages.detail(request) },
        ]
    }

    /// The filter of the page's query, times read in the operator's time zone.
    private func filter(_ request: ConsoleRequest, _ location: ConsoleLocation) throws -> (RequestLogFilter, [(String, String?)]) {
        let timeZone = Formatting.timeZone(of: request.http)
        var parameters: [String: String] = ["environment": location.environment.rawValue]
        var kept: [(String, String?)] = []
        for key in ["database", "operation", "user", "status", "errors", "before"] {
            if let value = request.query(key), !value.isEmpty {
                parameters[key] = value
                if key != "before" { kept.append((key, value)) }
            }
        }
        for key in ["from", "to"] {
            guard let text = request.query(key), !text.isEmpty else { continue }
            guard let time = Formatting.parseTime(text, in: timeZone) else {
                throw ConsoleError.badRequest("'\(text)' is not a time: use 2026-11-24 14:05 or pick one.")
            }
            parameters[key] = String(time)
            kept.append((key, text))
        }
        return (try actions.requestLogFilter(container: location.container, parameters: parameters), kept)
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        var context: [String: Any] = [
            "bar": location.bar(.logs), "timeZone": timeZone.identifier,
            "retention": Formatting.span(actions.store.configuration.requestLogRetention),
        ]
        // Set only when bounded or sampled: the page's sentence names what applies.
        context["maximumSize"] = actions.store.configuration.requestLogMaximumBytes.map(Formatting.binaryBytes)
        context["sampledReads"] = actions.store.configuration.requestLogSampledReadsPerSecond
        let chosen = { (key: String) in request.query(key) ?? "" }
        context["databases"] = ["public", "private", "shared"].map { ["name": $0, "selected": $0 == chosen("database")] }
        context["operations"] = console.configuration.apiOperations.map { ["name": $0, "selected": $0 == chosen("operation")] }
        context["user"] = chosen("user")
        context["status"] = chosen("status")
        context["errors"] = !chosen("errors").isEmpty
        context["from"] = chosen("from")
        context["to"] = chosen("to")
        context["action"] = location.path(.logs)
        do {
            let (filter, kept) = try self.filter(request, location)
            let answer = try actions.requestLog(filter, as: request.identity)
            let names = UserNames(try location.identifier, actions)
            let entries = answer.entries.map { Self.row($0, timeZone: timeZone, names: names, location: location) }
            context["entries"] = entries
            context["hasEntries"] = !entries.isEmpty
            if let next = answer.next { context["olderURL"] = location.path(.logs, query: kept + [("before", next)]) }
            if request.query("before") != nil { context["newestURL"] = location.path(.logs, query: kept) }
            context["exportJSON"] = location.path(.logs, "/export", query: kept + [("format", "jsonl")])
            context["exportCSV"] = location.path(.logs, "/export", query: kept + [("format", "csv")])
            context["tailURL"] = location.path(.logs, "/tail", query: kept.filter { $0.0 != "from" && $0.0 != "to" })
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            context["filterError"] = mapped.description
        }
        return .page(Page("console.logs", context: context))
    }

    /// One call as a row of the list and of the live tail (`console.log-row`), rendered from this
    /// alone: a failure says why, and every call which credential it carried.
    static func row(_ entry: RequestLogEntry, timeZone: TimeZone, names: UserNames, location: ConsoleLocation) -> [String: Any] {
        [
            "time": Formatting.time(entry.time, in: timeZone), "operation": entry.operation, "database": entry.database,
            "user": entry.user ?? "", "userLabel": names.context(entry.user),
            "status": String(entry.status), "isError": entry.isFailure, "code": entry.serverErrorCode ?? "",
            "failures": entry.resultFailureSummary ?? "", "reason": entry.reason ?? "",
            "credential": entry.credential?.description ?? "", "duration": Formatting.milliseconds(entry.durationMicroseconds),
            "bytesIn": Formatting.bytes(entry.bytesIn), "bytesOut": Formatting.bytes(entry.bytesOut), "client": entry.clientAddress,
            "requestID": entry.requestID, "detailURL": location.path(.logs, "/requests/\(entry.id)"),
        ]
    }

    /// One call's detail: the reason of an error, the credential, the user agent, the record
    /// types and zones, and the results by outcome; what calls logged before were kept without is "—".
    private func detail(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let entry = try actions.requestLogEntry(
            container: location.container, environment: location.environment, request: request.path("id"), as: request.identity
        ).entry
        let names = UserNames(try location.identifier, actions)
        let succeeded = entry.results.map { $0 - entry.failedResults }
        var context = Self.row(entry, timeZone: timeZone, names: names, location: location)
        context["bar"] = location.bar(.logs)
        context["timeZone"] = timeZone.identifier
        context["backURL"] = location.path(.logs)
        context["userAgent"] = entry.userAgent ?? ""
        context["recordTypes"] = entry.recordTypes.map { $0.split(separator: ",").joined(separator: ", ") } ?? ""
        context["zones"] = entry.zones.map { $0.split(separator: ",").joined(separator: ", ") } ?? ""
        context["hasResults"] = entry.results != nil
        context["outcomes"] =
            (succeeded.map { $0 > 0 ? [["code": "succeeded", "count": Formatting.count(Int64($0))]] : [] } ?? [])
            + entry.resultErrorsByCount.map { ["code": $0.code, "count": Formatting.count(Int64($0.count))] }
        context["results"] = entry.results.map { Formatting.count(Int64($0)) } ?? ""
        context["hasTrace"] = !entry.trace.isEmpty
        context["trace"] = entry.trace.enumerated().map { index, explanation in
            [
                "number": index + 1, "allowed": explanation.decision.isAllowed, "rule": explanation.decision.rule,
                "caller": explanation.caller, "database": explanation.database, "permission": explanation.permission?.rawValue ?? "",
                "recordType": explanation.recordType ?? "", "recordName": explanation.recordName ?? "", "zone": explanation.zone ?? "",
                "hasChecks": !explanation.checks.isEmpty, "caption": "Every grant and rule weighed, in order",
                "checks": explanation.checks.map { ["rule": $0.rule, "gives": $0.gives, "why": $0.why] },
                "simulateURL": Self.simulatorURL(explanation, location: location) ?? "",
            ] as [String: Any]
        }
        return .page(Page("console.log-entry", context: context))
    }

    /// The permission simulator asked the same question, when it can be: a decision on a type's
    /// grants in the public database, which is what the simulator answers.
    private static func simulatorURL(_ explanation: AccessExplanation, location: ConsoleLocation) -> String? {
        guard explanation.database == "public", let permission = explanation.permission, let type = explanation.recordType else {
            return nil
        }
        let subject: [(String, String)] =
            switch explanation.caller {
            case "world": [("subject", "world")]
            case let caller where caller.hasPrefix("user(") && caller.hasSuffix(")"):
                [("subject", "user"), ("user", String(caller.dropFirst(5).dropLast()))]
            default: []
            }
        guard !subject.isEmpty else { return nil }
        let query: [(String, String?)] =
            subject + [("permission", permission.rawValue), ("type", type)]
            + (permission == .create ? [] : [("record", explanation.recordName ?? "")])
        return location.path(.security, query: query) + "#simulator"
    }

    private func export(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let csv = request.query("format") == "csv"
        let export = try actions.exportRequestLog(try filter(request, location).0, csv: csv, as: request.identity)
        var response = HTTPResponse(status: .ok, bytes: export.bytes)
        response.headers["Content-Type"] = export.contentType
        response.headers["Content-Disposition"] =
            "attachment; filename=\"requests-\(location.environment.rawValue).\(csv ? "csv" : "jsonl")\""
        return .response(response)
    }

    private func tail(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let authenticator = console.authenticator
        let http = request.http
        let timeZone = Formatting.timeZone(of: request.http)
        let names = UserNames(try location.identifier, actions)
        let templates = console.pages.templates
        // Rows stream as the page's own rows, rendered by the same template from the same context.
        let render: @Sendable (RequestLogEntry) -> String? = { entry in
            try? templates.render("console.log-row", Self.row(entry, timeZone: timeZone, names: names, location: location))
        }
        return .response(
            RequestLogTail.response(
                actions.store.requestLog, filter: try filter(request, location).0, heartbeat: console.configuration.tailHeartbeat,
                render: render
            ) { authenticator.stillAuthenticates(http) })
    }
}
