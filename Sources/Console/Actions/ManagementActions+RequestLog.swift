import CloudKitWire
import CloudStore
import Foundation

extension ManagementActions {
    /// The most entries an export holds.
    public static let maximumLogExport = 100_000

    /// The request log filter a request asks for with its query parameters: `environment`,
    /// `database`, `operation`, `user` (sign-in name or user record name), `status`, `errors`
    /// (`1` or `true`), `from` and `to` (milliseconds since 1970 or ISO 8601), `requestID`, `before`
    /// (a page's `next`) and `limit`.
    public func requestLogFilter(container: String, parameters: [String: String]) throws -> RequestLogFilter {
        let identifier = try existingContainer(container)
        func value(_ key: String) -> String? {
            guard let text = parameters[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        func time(_ key: String) throws -> Int64? {
            guard let text = value(key) else { return nil }
            if let milliseconds = Int64(text) { return milliseconds }
            let formatter = ISO8601DateFormatter()
            guard let date = formatter.date(from: text) else {
                throw CloudStoreError.badRequest("'\(key)' is a time: milliseconds since 1970 or ISO 8601 (2026-11-24T14:05:09Z)")
            }
            return Int64(date.timeIntervalSince1970 * 1000)
        }
        func number(_ key: String) throws -> Int? {
            guard let text = value(key) else { return nil }
            guard let number = Int(text), number >= 0 else { throw CloudStoreError.badRequest("'\(key)' must be a whole number") }
            return number
        }
        var user = value("user")
        if let name = user, let found = try store.user(named: name, in: identifier) { user = found.userRecordName }
        if let environment = value("environment") { _ = try Environment(parsing: environment) }
        return RequestLogFilter(
            container: identifier.rawValue, environment: value("environment"), database: value("database"), operation: value("operation"),
            user: user, status: try number("status"), errorsOnly: ["1", "true", "yes", "on"].contains(value("errors") ?? ""),
            from: try time("from"), to: try time("to"), before: try number("before").map(Int64.init),
            requestID: value("requestID"), limit: min(try number("limit") ?? 50, 1000))
    }

    /// The request log's entries for a filter, newest first; `next` continues the list.
    public func requestLog(_ filter: RequestLogFilter, as actor: OperatorIdentity) throws -> RequestLogView {
        let entries = try store.requestLog.entries(filter)
        return RequestLogView(entries: entries, next: entries.count == filter.limit ? entries.last.map { String($0.id) } : nil)
    }

    /// One logged call of a container, by `request`: its place in the log (digits, as the list's
    /// `id` and the console's links give it), else its request id (as `X-Apple-Request-UUID`
    /// told the client); in `environment`, or in either when `nil`.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when the log holds no such call (never made,
    ///   or older than the retention).
    public func requestLogEntry(
        container: String, environment: Environment?, request: String, as actor: OperatorIdentity
    ) throws -> RequestLogEntryView {
        let identifier = try existingContainer(container)
        let request = request.trimmingCharacters(in: .whitespaces)
        var filter = RequestLogFilter(container: identifier.rawValue, environment: environment?.rawValue, limit: 1)
        if let id = Int64(request), id >= 0 {
            filter.before = id + 1
            if let entry = try store.requestLog.entries(filter).first, entry.id == id { return RequestLogEntryView(entry) }
            filter.before = nil
        }
        // A client may send its own request id, digits included: a place in the log that holds
        // no such call is looked up as one.
        filter.requestID = request
        guard !request.isEmpty, let entry = try store.requestLog.entries(filter).first else {
            let place = environment.map { " in \($0.rawValue)" } ?? ""
            throw CloudStoreError.notFound("The request log holds no call '\(request)'\(place): it may be older than the retention.")
        }
        return RequestLogEntryView(entry)
    }

    /// The columns of the CSV export, in order.
    static let logExportColumns = [
        "time", "container", "environment", "database", "operation", "user", "client", "status", "serverErrorCode",
        "durationMicroseconds", "bytesIn", "bytesOut", "requestID", "id", "reason", "credential", "userAgent", "recordTypes", "zones",
        "results", "resultErrors", "resultFailures",
    ]

    /// The filtered log as JSON lines or CSV, newest first, up to ``maximumLogExport`` entries.
    public func exportRequestLog(_ filter: RequestLogFilter, csv: Bool, as actor: OperatorIdentity) throws -> (
        bytes: [UInt8], contentType: String
    ) {
        var filter = filter
        filter.limit = Self.maximumLogExport
        filter.before = nil
        let entries = try store.requestLog.entries(filter)
        if csv {
            var text = Self.logExportColumns.joined(separator: ",") + "\r\n"
            for entry in entries {
                let cells: [String] = [
                    String(entry.time), entry.container, entry.environment, entry.database, entry.operation, entry.user ?? "",
                    entry.clientAddress,
                    String(entry.status), entry.serverErrorCode ?? "", String(entry.durationMicroseconds), String(entry.bytesIn),
                    String(entry.bytesOut), entry.requestID, String(entry.id), entry.reason ?? "", entry.credential?.description ?? "",
                    entry.userAgent ?? "", entry.recordTypes ?? "", entry.zones ?? "", entry.results.map(String.init) ?? "",
                    entry.resultErrorsByCount.map { "\($0.code)=\($0.count)" }.joined(separator: ","), entry.resultFailureSummary ?? "",
                ]
                text += cells.map(RecordExport.cell).joined(separator: ",") + "\r\n"
            }
            return (Array(text.utf8), "text/csv; charset=utf-8")
        }
        var bytes: [UInt8] = []
        for entry in entries {
            bytes += Self.logEntryJSON(entry).serialized()
            bytes.append(UInt8(ascii: "\n"))
        }
        return (bytes, "application/x-ndjson; charset=utf-8")
    }

    /// One entry as the API, the export and the live tail give it: what was asked and answered,
    /// then why (`reason`), by which credential, from which user agent, over which record types
    /// and zones, and the results that failed one by one (`resultErrors` by code, and
    /// `resultFailures` in words: `2 of 5 records: ACCESS_DENIED`).
    static func logEntryJSON(_ entry: RequestLogEntry) -> JSONValue {
        func list(_ packed: String?) -> JSONValue { packed.map { .array($0.split(separator: ",").map { .string(String($0)) }) } ?? .null }
        let credential: JSONValue =
            switch entry.credential {
            case .apiToken(let name): ["kind": "apiToken", "name": .string(name)]
            case .serverKey(let name): ["kind": "serverKey", "name": .string(name)]
            case nil: .null
            }
        let json: JSONValue = [
            "id": .integer(entry.id), "time": .integer(entry.time), "container": .string(entry.container),
            "environment": .string(entry.environment),
            "database": .string(entry.database), "operation": .string(entry.operation), "user": optional(entry.user),
            "client": .string(entry.clientAddress), "status": .integer(Int64(entry.status)),
            "serverErrorCode": optional(entry.serverErrorCode),
            "durationMicroseconds": .integer(entry.durationMicroseconds), "bytesIn": .integer(entry.bytesIn),
            "bytesOut": .integer(entry.bytesOut),
            "requestID": .string(entry.requestID),
            "reason": optional(entry.reason), "credential": credential, "userAgent": optional(entry.userAgent),
            "recordTypes": list(entry.recordTypes), "zones": list(entry.zones),
            "results": entry.results.map { .integer(Int64($0)) } ?? .null,
            "resultErrors": .object(JSONObject(entry.resultErrorsByCount.map { ($0.code, JSONValue.integer(Int64($0.count))) })),
            "resultFailures": optional(entry.resultFailureSummary),
        ]
        // Only calls with access decisions recorded carry the member, so that others read as before.
        if !entry.trace.isEmpty, case .object(var object) = json {
            object["trace"] = .array(entry.trace.map(accessExplanationJSON))
            return .object(object)
        }
        return json
    }

    /// An access decision as the management API answers it: who asked what, where, every grant
    /// or rule weighed with whether it gave the permission and why, and the decision.
    static func accessExplanationJSON(_ explanation: AccessExplanation) -> JSONValue {
        [
            "caller": .string(explanation.caller), "permission": optional(explanation.permission?.rawValue),
            "database": .string(explanation.database), "recordType": optional(explanation.recordType),
            "recordName": optional(explanation.recordName), "zone": optional(explanation.zone),
            "allowed": .bool(explanation.decision.isAllowed), "rule": .string(explanation.decision.rule),
            "checks": .array(explanation.checks.map { ["rule": .string($0.rule), "gives": .bool($0.gives), "why": .string($0.why)] }),
        ]
    }

    /// An access decision from its JSON (``accessExplanationJSON(_:)``).
    static func accessExplanation(_ value: JSONValue) throws -> AccessExplanation {
        let fields = try AnswerFields(value)
        let permission = try fields.optionalString("permission")
        return AccessExplanation(
            caller: try fields.string("caller"), permission: permission.flatMap(Permission.init(rawValue:)),
            database: try fields.string("database"), recordType: try fields.optionalString("recordType"),
            recordName: try fields.optionalString("recordName"), zone: try fields.optionalString("zone"),
            checks: try fields.array("checks") { check in
                let check = try AnswerFields(check)
                return AccessExplanation.Check(rule: try check.string("rule"), gives: try check.bool("gives"), why: try check.string("why"))
            }, decision: .recorded(isAllowed: try fields.bool("allowed"), rule: try fields.string("rule")))
    }
}
