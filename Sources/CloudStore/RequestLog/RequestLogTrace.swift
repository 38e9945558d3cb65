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

    /// `trace` as stored; `nil` for none.
    static func packed(_ trace: [AccessExplanation]) -> String? {
        guard !trace.isEmpty else { return nil }
        let stored = trace.map { explanation in
            Stored(
                caller: explanation.caller, permission: explanation.permission?.rawValue, database: explanation.database,
                recordType: explanation.recordType, recordName: explanation.recordName, zone: explanation.zone,
                allowed: explanation.decision.isAllowed, rule: explanation.decision.rule,
                checks: explanation.checks.map { StoredCheck(rule: $0.rule, gives: $0.gives, why: $0.why) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(stored) else { return nil }
        return String(decoding: data, as: UTF8.self)
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
