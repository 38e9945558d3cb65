import Foundation

extension AppUser {
    /// The user as the audit trail names them: `alice (_3f2a…)`.
    var auditLabel: String { "\(name) (\(userRecordName))" }
}

extension EnvironmentLimits {
    /// The limits as the audit trail gives them: `20 requests/s, burst 40, storage unlimited, …`.
    var auditSummary: String {
        var parts = ["\(requestsPerSecond.formatted()) requests/s, burst \(burst)"]
        parts.append("storage " + (storageBytes.map { "\($0) bytes" } ?? "unlimited"))
        parts.append("transfer " + (transferBytesPerMonth.map { "\($0) bytes a month" } ?? "unlimited"))
        return parts.joined(separator: ", ")
    }
}
