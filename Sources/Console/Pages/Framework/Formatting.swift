import Foundation
import HTTPServer

/// How pages write numbers, sizes and times for people.
enum Formatting {
    /// `1,234,567`.
    static func count(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var output = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { output.append(",") }
            output.append(digit)
        }
        return (value < 0 ? "-" : "") + output
    }

    /// `0 bytes`, `512 bytes`, `1.5 KB`, `23.4 MB` (powers of 1,000, as storage is sold).
    static func bytes(_ value: Int64) -> String {
        if value < 1000 { return value == 1 ? "1 byte" : "\(value) bytes" }
        let units = ["KB", "MB", "GB", "TB", "PB"]
        var scaled = Double(value) / 1000
        var unit = 0
        while scaled >= 1000, unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        return String(format: scaled < 10 ? "%.1f %@" : "%.0f %@", scaled, units[unit])
    }

    /// A time in milliseconds since 1970 as `2026-11-24 14:05:09` in `zone`.
    static func time(_ milliseconds: Int64, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// A time as an `<input type="datetime-local">` value in `zone`: `2026-11-24T14:05:09`.
    static func localInput(_ milliseconds: Int64, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Reads a time typed or picked in `zone`: `2026-11-24`, `2026-11-24T14:05`, `2026-11-24 14:05:09`,
    /// with an optional `Z` or offset, or milliseconds since 1970.
    static func parseTime(_ text: String, in zone: TimeZone) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let milliseconds = Int64(trimmed) { return milliseconds }
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            iso.formatOptions = options
            if let date = iso.date(from: trimmed) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        for format in ["yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// The cookie the console's script sets to the browser's time zone.
    static let timeZoneCookie = "cumulus_tz"

    /// The operator's time zone: the browser's, as its cookie names it, else UTC.
    static func timeZone(of request: HTTPRequest) -> TimeZone {
        if let name = Cookies.value(named: timeZoneCookie, in: request).flatMap({ PercentDecoding.decode($0) }),
            name.utf8.count <= 64, let zone = TimeZone(identifier: name)
        {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
