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

    /// `noun` as one of `count` things: `record` for 1, `records` for any other count.
    static func noun(_ count: Int64, _ noun: String) -> String {
        count == 1 ? noun : noun + "s"
    }

    /// `1 record`, `1,234 records`.
    static func counted(_ count: Int64, _ noun: String) -> String {
        self.count(count) + " " + self.noun(count, noun)
    }

    /// `0 bytes`, `512 bytes`, `1.5 KB`, `23.4 MB` (powers of 1,000, as storage is sold).
    static func bytes(_ value: Int64) -> String {
        scaled(value, base: 1000, units: ["KB", "MB", "GB", "TB", "PB"], wholeAsWhole: false)
    }

    /// `64 KiB`, `1 GiB`, `1.5 GiB` (powers of 1,024): a size as settings are written
    /// (`--request-log-max-size 1GiB`), so the page names the bound the operator set.
    static func binaryBytes(_ value: Int64) -> String {
        scaled(value, base: 1024, units: ["KiB", "MiB", "GiB", "TiB", "PiB"], wholeAsWhole: true)
    }

    /// `value` bytes in the largest of `units` (each `base` times the one before) under which
    /// it stays below `base`: one decimal under 10, none above, and none for a whole number
    /// when `wholeAsWhole`.
    private static func scaled(_ value: Int64, base: Double, units: [String], wholeAsWhole: Bool) -> String {
        if Double(value) < base { return value == 1 ? "1 byte" : "\(value) bytes" }
        var scaled = Double(value) / base
        var unit = 0
        while scaled >= base, unit < units.count - 1 {
            scaled /= base
            unit += 1
        }
        let whole = wholeAsWhole && scaled == scaled.rounded()
        return String(format: scaled < 10 && !whole ? "%.1f %@" : "%.0f %@", scaled, units[unit])
    }

    /// A duration in microseconds as milliseconds: `0.42 ms`, `12 ms`.
    static func milliseconds(_ microseconds: Int64) -> String {
        let value = Double(microseconds) / 1000
        return String(format: value < 10 ? "%.2f ms" : "%.0f ms", value)
    }

    /// A span of milliseconds in whole days (`7 days`) when it is some, else in hours.
    static func span(_ milliseconds: Int64) -> String {
        let hours = milliseconds / 3_600_000
        if hours % 24 == 0 { return hours == 24 ? "1 day" : "\(hours / 24) days" }
        return hours == 1 ? "1 hour" : "\(hours) hours"
    }

    /// A time in milliseconds since 1970 as `2026-11-24 14:05:09` in `zone`.
    static func time(_ milliseconds: Int64, in zone: TimeZone) -> String {
        civil(milliseconds, in: zone, separator: " ")
    }

    /// A time as an `<input type="datetime-local">` value in `zone`: `2026-11-24T14:05:09`.
    static func localInput(_ milliseconds: Int64, in zone: TimeZone) -> String {
        civil(milliseconds, in: zone, separator: "T")
    }

    /// The proleptic Gregorian date and time of `milliseconds` in `zone`. Computed rather than
    /// formatted with a DateFormatter: making one per value was a third of a records page's CPU.
    static func civil(_ milliseconds: Int64, in zone: TimeZone, separator: Character) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let local = seconds + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = local - days * 86_400
        let date = CivilDate.date(daysSinceEpoch: Int(days))
        let year = Int64(date.year), month = Int64(date.month), day = Int64(date.day)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
        let yearText = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return yearText + "-" + two(month) + "-" + two(day) + String(separator)
            + two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60) + ":" + two(secondOfDay % 60)
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
        for format in [
            "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm",
            "yyyy-MM-dd",
        ] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// The cookie the console's script sets to the browser's time zone.
    static let timeZoneCookie = "cumulus_tz"

    /// The frame's values for the script that sets the time zone cookie: its `name` and the
    /// `attributes` after its value, named and scoped as ``CookiePolicy`` has every cookie.
    static func timeZoneCookie(_ cookies: CookiePolicy) -> [String: String] {
        [
            "name": cookies.name(timeZoneCookie),
            "attributes": "; path=\(cookies.secure ? "/" : "/console"); samesite=strict" + (cookies.secure ? "; secure" : ""),
        ]
    }

    /// The operator's time zone: the browser's, as its cookie names it, else UTC. Either name is
    /// read (only a display preference rides on it), the `__Host-` one first.
    static func timeZone(of request: HTTPRequest) -> TimeZone {
        let value =
            Cookies.value(named: CookiePolicy.hostPrefix + timeZoneCookie, in: request) ?? Cookies.value(named: timeZoneCookie, in: request)
        if let name = value.flatMap({ PercentDecoding.decode($0) }),
            name.utf8.count <= 64, let zone = TimeZone(identifier: name)
        {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
