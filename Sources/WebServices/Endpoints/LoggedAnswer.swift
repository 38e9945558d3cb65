import CloudKitWire

/// What the request log keeps of an answer's contents: the record types and zones its results
/// are in, how many results it has, and which of them failed one by one (a `200` whose records
/// answer `ACCESS_DENIED` or `CONFLICT`).
///
/// Read from answers built as a tree; answers written out as text (the reads' fast path) are
/// not parsed again for the log, and leave these unknown.
struct LoggedAnswer {
    /// Record types met, comma-separated in the order met.
    var recordTypes: String?
    /// Zone names met, comma-separated in the order met.
    var zones: String?
    /// Results counted; `nil` when the answer has no list of results.
    var results: Int?
    /// Failed results by `serverErrorCode`.
    var errors: [String: Int] = [:]
    /// The reason the first failed result gave the client, with its code: why the call
    /// partly failed.
    var reason: String?

    /// The lists of results an answer may hold, one result per record, zone or subscription.
    private static let resultLists = ["records", "zones", "subscriptions"]

    /// Reads `answer` to a call of `operation`; nothing for an answer written out as text. A
    /// lookup's `NOT_FOUND` answers what was asked (the record is not there) and is not
    /// counted as a failure.
    init(_ answer: JSONValue, operation: String) {
        let lookup = operation.hasSuffix("/lookup")
        guard let object = answer.objectValue else { return }
        for list in Self.resultLists {
            guard let items = object[list]?.arrayValue else { continue }
            results = (results ?? 0) + items.count
            for item in items {
                guard let result = item.objectValue else { continue }
                if let code = result["serverErrorCode"]?.stringValue, !(lookup && code == "NOT_FOUND") {
                    errors[code, default: 0] += 1
                    if reason == nil { reason = code + ": " + (result["reason"]?.stringValue ?? "") }
                }
                if let type = result["recordType"]?.stringValue { Self.add(type, to: &recordTypes) }
                let zoneID = result["zoneID"]?.objectValue
                if let zone = zoneID?["zoneName"]?.stringValue { Self.add(zone, to: &zones) }
            }
        }
    }

    /// Adds `name` to a comma-separated list unless it holds it already. A single name is
    /// kept as it is, so that the common answer (one type, one zone) copies no text.
    private static func add(_ name: String, to list: inout String?) {
        guard let known = list else {
            list = name
            return
        }
        if known == name || known.split(separator: ",").contains(where: { $0 == name }) { return }
        list = known + "," + name
    }
}
