import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// A zone restored from a backup in the store: what the backup holds comes back with the
/// asset blobs its records hold when the environment lost them since (collected once no record
/// or kept version held them), and a backup that does not hold a zone or an environment is said so.
@Suite struct RestoreFromBackupTests {
    private func store() throws -> TemporaryStore {
        try TemporaryStore(controlledClock: true) { $0.backups = BackupSchedule(location: .directory($0.dataDirectory + "/backups")) }
    }

    @Test(.enabled(if: TestBackend.isSQLite, "Backups of a data directory hold its blobs; PostgreSQL's leave them where they are kept"))
    func aRecordRestoredFromABackupGetsItsAssetBackAfterTheBlobWasCollected() throws {
        let temporary = try store()
        let content = (0..<5000).map { UInt8($0 % 251) }
        _ = try AssetUploadTests.save(content, as: "n1", in: temporary)
        let backup = try temporary.store.takeBackup().name
        _ = try temporary.database().modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n1")]))
        // Past the retention, the deleted version is forgotten and the blob is collected.
        temporary.clock.advance(by: 31 * 86_400_000)
        try temporary.store.forgetExpiredVersions()
        #expect(try temporary.store.collectUnreferencedAssets(temporary.container, .development, createdBefore: .max) == 1)

        let scope = HistoryScope(database: .public, zoneName: ZoneID.defaultZoneName)
        let outcome = try temporary.store.restoreFromBackup(
            named: backup, temporary.container, .development, in: scope, dryRun: false, by: .local)
        #expect(outcome.restored == 1 && outcome.total == 1)
        #expect(try AssetUploadTests.download("n1", in: temporary).bytes == content, "byte for byte, from the backup")
        // The blob is the environment's again: held by the record, never collected while it is.
        #expect(try temporary.store.collectUnreferencedAssets(temporary.container, .development, createdBefore: .max) == 0)
        #expect(try AssetUploadTests.download("n1", in: temporary).bytes == content)
    }

    @Test func aRecordTypeComesBackInEveryZoneAndAMissingZoneIsSaidSo() throws {
        let temporary = try store()
        let alice = try temporary.store.addUser(temporary.container, name: "alice", password: "a long passphrase").userRecordName
        let database = try temporary.database(.development, .private, as: .user(alice))
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Other")])
        try database.create("Note", "kept")
        _ = try database.modify(
            ModifyRequest(
                operations: [RecordOperation(.create, recordName: "elsewhere", recordType: "Note", fields: ["title": .string("there")])],
                zoneName: "Other"))
        let backup = try temporary.store.takeBackup().name
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "kept")]))
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "elsewhere")], zoneName: "Other"))
        try database.create("Note", "new")

        let byType = HistoryScope(database: .private(alice), recordType: "Note")
        let plan = try temporary.store.restoreFromBackup(
            named: backup, temporary.container, .development, in: byType, dryRun: true, by: .local)
        #expect((plan.restored, plan.reverted, plan.removed) == (2, 0, 1))
        #expect(Set(plan.sample) == ["\(ZoneID.defaultZoneName)/kept", "\(ZoneID.defaultZoneName)/new", "Other/elsewhere"])
        #expect(try database.lookup([RecordLookup("new")]).first?.record != nil, "a dry run changes nothing")
        _ = try temporary.store.restoreFromBackup(named: backup, temporary.container, .development, in: byType, dryRun: false, by: .local)
        #expect(try database.lookup([RecordLookup("kept")]).first?.record != nil)
        #expect(try database.lookup([RecordLookup("elsewhere")], zoneName: "Other").first?.record?.fields["title"] == .string("there"))
        #expect(try database.lookup([RecordLookup("new")]).first?.record == nil)

        let nowhere = HistoryScope(database: .private(alice), zoneName: "Nowhere")
        #expect(throws: CloudStoreError.notFound("The backup \(backup) holds no zone Nowhere in the \(DatabaseID.private(alice)) database"))
        {
            try temporary.store.restoreFromBackup(named: backup, temporary.container, .development, in: nowhere, dryRun: true, by: .local)
        }
        // A container made after the backup is not in it.
        let later = try ContainerIdentifier("iCloud.com.example.Later")
        _ = try temporary.store.createContainer(later)
        let everywhere = HistoryScope(database: .public, recordType: "Note")
        #expect(throws: CloudStoreError.notFound("The backup \(backup) holds no development environment of \(later)")) {
            try temporary.store.restoreFromBackup(named: backup, later, .development, in: everywhere, dryRun: true, by: .local)
        }
    }
}
