import HTTPServer
import Testing

/// The proleptic Gregorian arithmetic the console's times and the server-to-server dates share.
@Suite struct CivilDateTests {
    @Test func knownDaysMapToTheirDates() {
        #expect(CivilDate.date(daysSinceEpoch: 0) == (1970, 1, 1))
        #expect(CivilDate.date(daysSinceEpoch: -1) == (1969, 12, 31))
        #expect(CivilDate.date(daysSinceEpoch: 11_016) == (2000, 2, 29))
        #expect(CivilDate.date(daysSinceEpoch: 20_781) == (2026, 11, 24))
        #expect(CivilDate.date(daysSinceEpoch: -719_468) == (0, 3, 1))
    }

    @Test func daysAndDatesRoundTripAcrossCenturiesAndLeapYears() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let date = CivilDate.date(daysSinceEpoch: days)
            #expect((1...12).contains(date.month))
            #expect((1...CivilDate.daysIn(month: date.month, year: date.year)).contains(date.day))
            #expect(CivilDate.daysSinceEpoch(year: date.year, month: date.month, day: date.day) == days)
        }
    }

    @Test func leapYearsFollowTheGregorianRule() {
        #expect(CivilDate.isLeap(2024))
        #expect(CivilDate.isLeap(2000))
        #expect(!CivilDate.isLeap(1900))
        #expect(!CivilDate.isLeap(2026))
        #expect(CivilDate.daysIn(month: 2, year: 2000) == 29)
        #expect(CivilDate.daysIn(month: 2, year: 2100) == 28)
        #expect(CivilDate.daysIn(month: 4, year: 2026) == 30)
    }
}
