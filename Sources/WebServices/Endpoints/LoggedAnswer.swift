import CloudKitWire

/// What the request log keeps of an answer's contents: the record types and zones its results
/// are in, how many results it has, and which of them failed one by one (a `200` whose records
/// answer `ACCESS_DENIED` or `CONFLICT`).
///
/// Answers built as a tree are read member by member; answers written out as text (most of
/// them: queries, lookups, writes) are scanned for their keys, never parsed again, so that
/// logging them costs the request no allocation in the common case.
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

    /// Reads `answer` to a call of `operation`. A lookup answers each record asked for, there
    /// or not, reachable or not: its per-record errors are what was asked, not failures of the
    /// call, and are not counted.
    init(_ answer: JSONValue, operation: String) {
        read(answer, lookup: operation.hasSuffix("/lookup"))
    }

    /// Reads a value built as a tree member by member, and text written out by scanning it.
    /// Values are matched, not read through the accessors, which would parse text; nothing
    /// here allocates for the common answer (one record type and zone, short names, no failures).
    private mutating func read(_ answer: JSONValue, lookup: Bool) {
        switch answer {
        case .serialized(let text): scan(text.bytes, lookup: lookup)
        case .object(let object):
            for list in Self.resultLists {
                guard case .array(let items)? = object[list] else { continue }
                for item in items {
                    switch item {
                    case .object(let result): read(result, lookup: lookup)
                    case .serialized(let text): scan(text.bytes, lookup: lookup)
                    default: continue
                    }
                }
            }
        default: return
        }
    }

    /// One result built as a tree.
    private mutating func read(_ result: JSONObject, lookup: Bool) {
        results = (results ?? 0) + 1
        if !lookup, let code = Self.string(result["serverErrorCode"]) {
            errors[code, default: 0] += 1
            if reason == nil { reason = code + ": " + (Self.string(result["reason"]) ?? "") }
        }
        if let type = Self.string(result["recordType"]) { Self.add(type, to: &recordTypes) }
        if case .object(let zoneID)? = result["zoneID"], let zone = Self.string(zoneID["zoneName"]) { Self.add(zone, to: &zones) }
    }

    /// Results written out as text by this server's writer (compact, so keys as written here):
    /// one pass that keeps its depth outside strings, counting the objects of the answer's
    /// list (depth 2) as results and reading the keys of each result (depth 3); zone names are
    /// read at any depth below, references' included.
    private mutating func scan(_ bytes: [UInt8], lookup: Bool) {
        var counted = 0
        // The code and reason of the result being read, kept until it closes.
        var code: String?
        var codeReason: String?
        bytes.withUnsafeBufferPointer { text in
            var depth = 0
            var position = 0
            while position < text.count {
                let byte = text[position]
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if depth == 2, byte == UInt8(ascii: "{") { counted += 1 }
                    depth += 1
                    position += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    position += 1
                    if depth == 2, let failed = code {
                        if reason == nil { reason = failed + ": " + (codeReason ?? "") }
                        code = nil
                        codeReason = nil
                    }
                case UInt8(ascii: "\""):
                    let found = depth >= 3 ? Self.key(in: text, at: position) : nil
                    if let (key, length) = found, depth == 3 || key == .zoneName {
                        let start = position + length
                        let end = Self.endOfString(in: text, from: start)
                        let value = String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
                        switch key {
                        case .recordType: Self.add(value, to: &recordTypes)
                        case .zoneName: Self.add(value, to: &zones)
                        case .serverErrorCode:
                            if !lookup {
                                errors[value, default: 0] += 1
                                code = value
                            }
                        case .reason:
                            codeReason = value.replacingOccurrences(of: "\\\"", with: "\"")
                        }
                        position = end + 1
                    } else {
                        position = Self.endOfString(in: text, from: position + 1) + 1
                    }
                default:
                    position += 1
                }
            }
        }
        if counted > 0 { results = (results ?? 0) + counted }
    }

    /// Where the string whose text starts at `start` ends: its closing quote, or the end.
    private static func endOfString(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var position = start
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\""): return position
            default: position += 1
            }
        }
        return text.count
    }

    /// The keys the scan looks for, each as written with what follows it.
    private enum Key: CaseIterable {
        case recordType, zoneName, serverErrorCode, reason

        var pattern: [UInt8] {
            switch self {
            case .recordType: Array(#""recordType":""#.utf8)
            case .zoneName: Array(#""zoneName":""#.utf8)
            case .serverErrorCode: Array(#""serverErrorCode":""#.utf8)
            case .reason: Array(#""reason":""#.utf8)
            }
        }

        /// The pattern, made once.
        var bytes: [UInt8] {
            switch self {
            case .recordType: Self.recordTypeBytes
            case .zoneName: Self.zoneNameBytes
            case .serverErrorCode: Self.serverErrorCodeBytes
            case .reason: Self.reasonBytes
            }
        }
        private static let recordTypeBytes = Key.recordType.pattern
        private static let zoneNameBytes = Key.zoneName.pattern
        private static let serverErrorCodeBytes = Key.serverErrorCode.pattern
        private static let reasonBytes = Key.reason.pattern
    }

    /// The key whose pattern starts at `position`, if any, with the pattern's length.
    private static func key(in text: UnsafeBufferPointer<UInt8>, at position: Int) -> (Key, Int)? {
        // Most keys of an answer are none of these: their first letter turns them away before
        // any pattern is compared, as this runs for every key of every logged answer.
        guard position + 1 < text.count else { return nil }
        func matching(_ key: Key) -> (Key, Int)? {
            let pattern = key.bytes
            guard position + pattern.count <= text.count else { return nil }
            for offset in pattern.indices where text[position + offset] != pattern[offset] { return nil }
            return (key, pattern.count)
        }
        switch text[position + 1] {
        case UInt8(ascii: "r"): return matching(.recordType) ?? matching(.reason)
        case UInt8(ascii: "z"): return matching(.zoneName)
        case UInt8(ascii: "s"): return matching(.serverErrorCode)
        default: return nil
        }
    }

    /// A string member as it is; anything else, text written out included, is not read.
    private static func string(_ value: JSONValue?) -> String? {
        guard case .string(let string)? = value else { return nil }
        return string
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
