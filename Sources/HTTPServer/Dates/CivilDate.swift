/// Calendar arithmetic on the proleptic Gregorian calendar, after Howard Hinnant's algorithms:
/// days since 1970-01-01 to a year, month and day and back, with no calendar, locale or time zone
/// object involved, so it can run per value on hot paths (signed requests, console tables).
public enum CivilDate {
    /// Whether `year` has a February 29th.
    @inlinable
    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1–12) in `year`.
    @inlinable
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The days since 1970-01-01 of a date ("days from civil"); negative before 1970.
    /// - Parameters:
    ///   - year: The year, such as `2026`.
    ///   - month: The month, 1–12.
    ///   - day: The day of the month, from 1.
    /// - Returns: The day number, `0` for 1970-01-01.
    @inlinable
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day counted from 1970-01-01 ("civil from days").
    /// - Parameter days: The day number, `0` for 1970-01-01; negative before 1970.
    /// - Returns: The year, the month (1–12) and the day of the month (from 1).
    @inlinable
    public static func date(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
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
