import Foundation
import TestSupport
import Testing

@testable import Console

@Suite struct FormattingTests {
    /// The computed date and time agree with Foundation's formatter across zones and DST, after
    /// 1582 (before it, Foundation switches to the Julian calendar; the console stays
    /// proleptic Gregorian, as ISO 8601 is).
    @Test func timesMatchDateFormatterInEveryZone() {
        var generator = SeededGenerator(seed: 20_261_124)
        let zones = [
            "UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns", "Australia/Lord_Howe",
        ]
        .compactMap(TimeZone.init(identifier:))
        #expect(zones.count == 7)
        let fixed: [Int64] = [0, -1, -1000, -1001, 999, 951_782_400_000, 1_795_552_847_790, -2_208_988_800_001, 253_402_300_799_000]
        let random = (0..<2_000).map { _ in Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator) }
        for zone in zones {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            for milliseconds in fixed + random {
                let seconds = (Double(milliseconds) / 1000).rounded(.down)
                let expected = formatter.string(from: Date(timeIntervalSince1970: seconds))
                #expect(Formatting.time(milliseconds, in: zone) == expected, "\(milliseconds) in \(zone.identifier)")
            }
        }
        #expect(Formatting.localInput(1_795_552_847_790, in: TimeZone(identifier: "UTC")!) == "2026-11-24T20:40:47")
        #expect(Formatting.time(-62_135_596_800_000, in: TimeZone(identifier: "UTC")!) == "0001-01-01 00:00:00")
    }

    /// Sizes set in binary units read back in them: the default bound is `1 GiB`, not `1.1 GB`.
    @Test func binarySizesNameTheUnitsSettingsAreWrittenIn() {
        #expect(Formatting.binaryBytes(1 << 30) == "1 GiB")
        #expect(Formatting.binaryBytes(64 << 10) == "64 KiB")
        #expect(Formatting.binaryBytes(3 << 29) == "1.5 GiB")
        #expect(Formatting.binaryBytes(1000) == "1000 bytes")
        #expect(Formatting.binaryBytes(200 << 20) == "200 MiB")
    }
}
