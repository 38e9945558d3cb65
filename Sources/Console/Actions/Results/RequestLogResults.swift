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
        entries = try fields.array("entries") { value in
            let entry = try AnswerFields(value)
            var read = RequestLogEntry(
                time: try entry.int64("time"), container: try entry.string("container"), environment: try entry.string("environment"),
                database: try entry.string("database"), operation: try entry.string("operation"), user: try entry.optionalString("user"),
                clientAddress: try entry.string("client"), status: Int(try entry.int64("status")),
                serverErrorCode: try entry.optionalString("serverErrorCode"), durationMicroseconds: try entry.int64("durationMicroseconds"),
                bytesIn: try entry.int64("bytesIn"), bytesOut: try entry.int64("bytesOut"), requestID: try entry.string("requestID"))
            read.id = try entry.int64("id")
            return read
        }
        next = try fields.optionalString("next")
    }
}
