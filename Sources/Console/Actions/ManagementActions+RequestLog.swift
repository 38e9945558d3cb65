import CloudKitWire
import CloudStore
import Foundation

extension ManagementActions {
    /// The most entries an export holds.
    public static let maximumLogExport = 100_000

    /// The request log filter a request asks for with its query parameters: `environment`,
    /// `database`, `operation`, `user` (sign-in name or user record name), `status`, `errors`
    /// (`1` or `true`), `from` and `to` (milliseconds since 1970 or ISO 8601), `before` (a page's
    /// `next`) and `limit`.
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
            limit: min(try number("limit") ?? 50, 1000))
    }

    /// The request log's entries for a filter, newest first; `next` continues the list.
    public func requestLog(_ filter: RequestLogFilter, as actor: OperatorIdentity) throws -> RequestLogView {
        let entries = try store.requestLog.entries(filter)
        return RequestLogView(entries: entries, next: entries.count == filter.limit ? entries.last.map { String($0.id) } : nil)
    }

    /// One logged call of a container's environment, by its id.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when the log holds no such call (never made,
    ///   or older than the retention).
    public func requestLogEntry(container: String, environment: Environment, id: Int64) throws -> RequestLogEntry {
        let identifier = try existingContainer(container)
        let filter = RequestLogFilter(container: identifier.rawValue, environment: environment.rawValue, before: id + 1, limit: 1)
        guard let entry = try store.requestLog.entries(filter).first, entry.id == id else {
            throw CloudStoreError.notFound(
                "The request log holds no call \(id) in \(environment.rawValue): it may be older than the retention.")
        }
        return entry
    }

    /// The filtered log as JSON lines or CSV, newest first, up to ``maximumLogExport`` entries.
    public func exportRequestLog(_ filter: RequestLogFilter, csv: Bool, as actor: OperatorIdentity) throws -> (
        bytes: [UInt8], contentType: String
    ) {
        var filter = filter
        filter.limit = Self.maximumLogExport
        filter.before = nil
        let entries = try store.requestLog.entries(filter)
        if csv {
            var text =
                "time,container,environment,database,operation,user,client,status,serverErrorCode,durationMicroseconds,bytesIn,bytesOut,requestID\r\n"
            for entry in entries {
                let cells: [String] = [
                    String(entry.time), entry.container, entry.environment, entry.database, entry.operation, entry.user ?? "",
                    entry.clientAddress,
                    String(entry.status), entry.serverErrorCode ?? "", String(entry.durationMicroseconds), String(entry.bytesIn),
                    String(entry.bytesOut), entry.requestID,
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

    /// One entry as the API, the export and the live tail give it.
    static func logEntryJSON(_ entry: RequestLogEntry) -> JSONValue {
        [
            "id": .integer(entry.id), "time": .integer(entry.time), "container": .string(entry.container),
            "environment": .string(entry.environment),
            "database": .string(entry.database), "operation": .string(entry.operation), "user": optional(entry.user),
            "client": .string(entry.clientAddress), "status": .integer(Int64(entry.status)),
            "serverErrorCode": optional(entry.serverErrorCode),
            "durationMicroseconds": .integer(entry.durationMicroseconds), "bytesIn": .integer(entry.bytesIn),
            "bytesOut": .integer(entry.bytesOut),
            "requestID": .string(entry.requestID),
        ]
    }
}
