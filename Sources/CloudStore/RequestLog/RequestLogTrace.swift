import Foundation

/// How both backends keep a call's access decisions (``RequestLogEntry/trace``): JSON text, one
/// object per decision, readable where the rows are.
enum RequestLogTrace {
    /// One decision as stored.
    private struct Stored: Codable {
        var caller: String
        var permission: String?
        var database: String
        var recordType: String?
        var recordName: String?
        var zone: String?
        var allowed: Bool
        var rule: String
        var checks: [StoredCheck]
    }

    private struct StoredCheck: Codable {
        var rule: String
        var gives: Bool
        var why: String
    }

    /// `trace` as stored; `nil` for none. Written by hand, members in the order
    /// `JSONEncoder`'s sorted keys would give, which reads it back: the log's writer encodes every
    /// refusal's trace, and a general encoder costs it many times more.
    static func packed(_ trace: [AccessExplanation]) -> String? {
        guard !trace.isEmpty else { return nil }
        var text = "["
        for (index, explanation) in trace.enumerated() {
            if index > 0 { text += "," }
            text += #"{"allowed":"# + (explanation.decision.isAllowed ? "true" : "false")
            text += #","caller":"# + quoted(explanation.caller)
            text += #","checks":["#
            for (position, check) in explanation.checks.enumerated() {
                if position > 0 { text += "," }
                text +=
                    #"{"gives":"# + (check.gives ? "true" : "false") + #","rule":"# + quoted(check.rule) + #","why":"#
                    + quoted(check.why) + "}"
            }
            text += #"],"database":"# + quoted(explanation.database)
            if let permission = explanation.permission { text += #","permission":"# + quoted(permission.rawValue) }
            if let recordName = explanation.recordName { text += #","recordName":"# + quoted(recordName) }
            if let recordType = explanation.recordType { text += #","recordType":"# + quoted(recordType) }
            text += #","rule":"# + quoted(explanation.decision.rule)
            if let zone = explanation.zone { text += #","zone":"# + quoted(zone) }
            text += "}"
        }
        return text + "]"
    }

    /// `string` as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// The decisions `text` holds; none for `nil` or for text this program did not write.
    static func unpacked(_ text: String?) -> [AccessExplanation] {
        guard let text, let stored = try? JSONDecoder().decode([Stored].self, from: Data(text.utf8)) else { return [] }
        return stored.map { stored in
            AccessExplanation(
                caller: stored.caller, permission: stored.permission.flatMap(Permission.init(rawValue:)), database: stored.database,
                recordType: stored.recordType, recordName: stored.recordName, zone: stored.zone,
                checks: stored.checks.map { .init(rule: $0.rule, gives: $0.gives, why: $0.why) },
                decision: .recorded(isAllowed: stored.allowed, rule: stored.rule))
        }
    }
}
