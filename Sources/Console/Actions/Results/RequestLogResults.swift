import CloudKitWire
import CloudStore

/// A page of a container's request log, newest first.
public struct RequestLogView: ManagementResult, Equatable {
    /// The entries.
    public var entries: [RequestLogEntry]
    /// Where the next page starts, when there is more.
    public var next: String?

    init(entries: [RequestLogEntry], next: String?) {
        self.entries = entries
        self.next = next
    }

    public var json: JSONValue {
        var answer: JSONObject = ["entries": .array(entries.map(ManagementActions.logEntryJSON))]
        if let next { answer["next"] = .string(next) }
        return .object(answer)
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        entries = try fields.array("entries", RequestLogEntryView.entry)
        next = try fields.optionalString("next")
    }
}

/// One logged call, with what the request log keeps of it: the reason of an error, the
/// credential by name, the user agent, the record types and zones, the per-result outcomes.
public struct RequestLogEntryView: ManagementResult, Equatable {
    /// The call.
    public var entry: RequestLogEntry

    init(_ entry: RequestLogEntry) { self.entry = entry }

    public var json: JSONValue { ManagementActions.logEntryJSON(entry) }

    public init(json: JSONValue) throws { entry = try Self.entry(json) }

    /// An entry from its JSON (``ManagementActions/logEntryJSON(_:)``); the members calls logged
    /// before they were kept lack may be absent.
    static func entry(_ value: JSONValue) throws -> RequestLogEntry {
        let entry = try AnswerFields(value)
        var read = RequestLogEntry(
            time: try entry.int64("time"), container: try entry.string("container"), environment: try entry.string("environment"),
            database: try entry.string("database"), operation: try entry.string("operation"), user: try entry.optionalString("user"),
            clientAddress: try entry.string("client"), status: Int(try entry.int64("status")),
            serverErrorCode: try entry.optionalString("serverErrorCode"), durationMicroseconds: try entry.int64("durationMicroseconds"),
            bytesIn: try entry.int64("bytesIn"), bytesOut: try entry.int64("bytesOut"), requestID: try entry.string("requestID"))
        read.id = try entry.int64("id")
        read.reason = try entry.optionalString("reason")
        if let credential = value["credential"], !credential.isNull {
            let fields = try AnswerFields(credential)
            let name = try fields.string("name")
            switch try fields.string("kind") {
            case "apiToken": read.credential = .apiToken(name)
            case "serverKey": read.credential = .serverKey(name)
            case let kind: throw MalformedAnswer(description: "The server's answer names no credential kind '\(kind)'")
            }
        }
        read.userAgent = try entry.optionalString("userAgent")
        func list(_ key: String) throws -> String? {
            guard let member = value[key], !member.isNull else { return nil }
            return try entry.strings(key).joined(separator: ",")
        }
        read.recordTypes = try list("recordTypes")
        read.zones = try list("zones")
        read.results = try entry.optionalInt64("results").map { Int($0) }
        for (code, count) in value["resultErrors"]?.objectValue ?? [:] {
            guard let count = count.int64Value(acceptingNumericString: false) else {
                throw MalformedAnswer(description: "The server's answer has a non-integer count of \(code) in \"resultErrors\"")
            }
            read.resultErrors[code] = Int(count)
        }
        if let trace = value["trace"], !trace.isNull {
            read.trace = try entry.array("trace", ManagementActions.accessExplanation)
        }
        return read
    }
}
