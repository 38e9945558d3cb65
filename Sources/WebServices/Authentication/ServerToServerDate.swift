import Foundation

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
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }

        var fraction = 0.0
        if bytes.count > 20 {
            // ".d" to ".ddddddddd" before the Z.
            let digits = 20..<(bytes.count - 1)
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty, let value = number(digits) else { return nil }
            fraction = Double(value) / pow(10, Double(digits.count))
        }
        let days = daysSinceEpoch(year: year, month: month, day: day)
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
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))Z"
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
