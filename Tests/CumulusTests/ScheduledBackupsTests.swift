import CloudStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import cumulus

/// The server's scheduled backups: taken one after another into the backup location while the
/// store serves, the oldest beyond the kept number deleted, the last one recorded on the store.
@Suite struct ScheduledBackupsTests {
    @Test func backupsAreTakenOnTheScheduleAndTheOldestBeyondTheKeptNumberDeleted() throws {
        let location = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-scheduled-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: location) }
        let fixture = try TemporaryStore(controlledClock: false) {
            $0.backups = BackupSchedule(location: .directory(location), interval: .seconds(1), keep: 2)
        }
        let store = fixture.store
        #expect(store.lastBackup == nil)
        let backups = ScheduledBackups(store: store, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        backups.start(every: store.configuration.backups?.interval)
        defer { backups.stop() }
        // Two kept, then a third taken after them: the first is gone.
        var firstTwo: [String] = []
        try waitUntil(timeout: 60) {
            firstTwo = try store.backups().map(\.name)
            return firstTwo.count == 2
        }
        // Read at once, as the schedule may be writing the next one meanwhile.
        var kept: [StoredBackup] = []
        var last: LastBackup?
        try waitUntil(timeout: 60) {
            kept = try store.backups()
            last = store.lastBackup
            return kept.count == 2 && last.map { !firstTwo.contains($0.backup.name) && kept.first?.name == $0.backup.name } == true
        }
        backups.stop()
        #expect(kept.first?.name == last?.backup.name && last?.backup.bytes == kept.first?.bytes)
        #expect(!kept.map(\.name).contains(firstTwo[1]), "the oldest beyond two deleted")
        #expect(kept.allSatisfy { $0.bytes > 0 && $0.manifestOK != false })
    }

    @Test func withoutAScheduleNothingIsTakenAndTheServerStopsCleanly() throws {
        let fixture = try TemporaryStore()
        let backups = ScheduledBackups(store: fixture.store, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        backups.start(every: nil)
        backups.stop()
        #expect(fixture.store.lastBackup == nil)
    }
}
