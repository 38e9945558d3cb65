import Foundation
import HTTPServer

/// Reads and writes the ISO 8601 dates of server-to-server signing.
///
/// Clients send `yyyy-MM-ddTHH:mm:ssZ` (CloudKit JS strips the milliseconds of
/// `toISOString()`); fractional seconds are tolerated for clients that keep them. Only UTC
/// (`Z`) is accepted, as every known client sends it. Parsing is by hand, with no formatter,
/// locale or time zone involved, since it runs on every signed request.
public enum ServerToServerDate {
    /// Reads a date such as `2016-01-25T22:15:43Z` or `2016-01-25T22:15:43.123Z`.
    /// - Parameter text: The header value.
    /// - Returns: The date, or `nil` when `text` is not such a date or names a day that does not exist.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        // yyyy-MM-ddTHH:mm:ss is 19 bytes, then an optional fraction, then Z.
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        var fraction = 0.0
        if bytes.count > 20 {
            // ".d" to ".ddddddddd" before the Z.
            let digits = 20..<(bytes.count - 1)
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty, let value = number(digits) else { return nil }
            fraction = Double(value) / pow(10, Double(digits.count))
        }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Writes `date` as `yyyy-MM-ddTHH:mm:ssZ`, whole seconds (rounded down), as clients sign it.
    /// - Parameter date: The date.
    /// - Returns: The text, such as `2016-01-25T22:15:43Z`.
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))Z"
    }
}
