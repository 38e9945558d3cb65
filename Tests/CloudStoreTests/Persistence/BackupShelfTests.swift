import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// The backups a server keeps in its backup location, a directory or a bucket: taken under
/// names that say when, listed newest first with their sizes, the oldest beyond `keep` deleted,
/// deleted on request, and the last one recorded for monitoring.
@Suite struct BackupShelfTests {
    private func store(in location: BackupLocation, keep: Int) throws -> TemporaryStore {
        try TemporaryStore(controlledClock: false) { $0.backups = BackupSchedule(location: location, keep: keep) }
    }

    private func newDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-backups-\(UUID().uuidString)").path
    }

    /// Backups asked for at once (several operators, a script beside the schedule) are each
    /// taken, under names of their own, where two in one millisecond collided on the name.
    @Test func backupsAskedForAtOnceAreEachTakenUnderANameOfTheirOwn() throws {
        let directory = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try store(in: .directory(directory), keep: 10)
        try source.database().create("Note", "first")
        let outcomes = Mutex<[Result<String, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let outcome = Result { try source.store.takeBackup().name }
            outcomes.withLock { $0.append(outcome) }
        }
        let names = try outcomes.withLock { $0 }.map { try $0.get() }
        #expect(Set(names).count == 4)
        #expect(try source.store.backups().map(\.name).sorted() == names.sorted())
    }

    @Test func backupsInADirectoryAreTakenListedKeptToTheirNumberAndDeleted() throws {
        let directory = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try store(in: .directory(directory), keep: 2)
        try source.database().create("Note", "first")
        #expect(source.store.lastBackup == nil)
        let taken = try (0..<3).map { _ in try source.store.takeBackup() }
        let listed = try source.store.backups()
        #expect(listed.map(\.name) == [taken[2].name, taken[1].name], "the oldest beyond two deleted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == listed.map(\.name).sorted())
        let newest = try #require(listed.first)
        #expect(newest.bytes > 0 && newest.bytes == taken[2].bytes)
        #expect(newest.name.hasSuffix(TestBackend.isSQLite ? ".tar" : ".dump"))
        #expect(newest.manifestOK == (TestBackend.isSQLite ? true : nil))
        #expect(source.store.lastBackup?.backup.name == taken[2].name)
        #expect(source.store.lastBackup?.backup.bytes == taken[2].bytes)

        try source.store.deleteBackup(named: taken[1].name)
        #expect(try source.store.backups().map(\.name) == [taken[2].name])
        #expect(throws: CloudStoreError.notFound("There is no backup \(taken[1].name)")) {
            try source.store.deleteBackup(named: taken[1].name)
        }
        #expect(throws: CloudStoreError.self) { try source.store.deleteBackup(named: "../cumulus.sqlite") }
        #expect(throws: CloudStoreError.self) {
            try source.store.deleteBackup(named: "cumulus-backup-\(newest.name.dropFirst(15))/../x.tar")
        }
    }

    @Test(.enabled(if: TestBackend.isSQLite, "Checks the manifest of a backup of a data directory"))
    func aDamagedBackupIsListedAsNotMatchingItsManifest() throws {
        let directory = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = try store(in: .directory(directory), keep: 5)
        let backup = try source.store.takeBackup()
        let file = try #require(FileHandle(forUpdatingAtPath: "\(directory)/\(backup.name)"))
        try file.truncate(atOffset: UInt64(backup.bytes / 2))
        try file.close()
        #expect(try source.store.backups().map(\.manifestOK) == [false])
    }

    @Test func backupsInABucketAreTakenListedKeptToTheirNumberAndDeleted() throws {
        let bucket = try S3TestServer.moto().makeBucket()
        let source = try store(in: .bucket(bucket, prefix: "nightly/"), keep: 2)
        try source.database().create("Note", "first")
        let taken = try (0..<3).map { _ in try source.store.takeBackup() }
        let listed = try source.store.backups()
        #expect(listed.map(\.name) == [taken[2].name, taken[1].name])
        #expect(listed.map(\.bytes) == [taken[2].bytes, taken[1].bytes])
        #expect(listed.map(\.manifestOK) == [TestBackend.isSQLite ? true : nil, TestBackend.isSQLite ? true : nil])
        let objects = try S3BackupBucket(bucket).list(prefix: "")
        #expect(objects.map(\.key).sorted() == listed.map { "nightly/\($0.name)" }.sorted())
        let copy = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try S3BackupBucket(bucket).download("nightly/\(taken[2].name)", to: copy + "/backup")
        #expect(Int64(FileManager.default.contents(atPath: copy + "/backup")?.count ?? -1) == taken[2].bytes)
        try source.store.deleteBackup(named: taken[2].name)
        #expect(try source.store.backups().map(\.name) == [taken[1].name])
    }

    /// A bucket's backup is listed as matching its manifest only when its members' sizes add up
    /// to the object's: one cut short, or with bytes added, does not.
    @Test(.enabled(if: TestBackend.isSQLite, "Checks the manifest of a backup of a data directory"))
    func aDamagedBackupInABucketIsListedAsNotMatchingItsManifest() throws {
        let bucket = try S3TestServer.moto().makeBucket()
        let source = try store(in: .bucket(bucket, prefix: "nightly/"), keep: 5)
        try source.database().create("Note", "first")
        let taken = try source.store.takeBackup()
        let directory = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shelf = S3BackupBucket(bucket)
        try shelf.download("nightly/\(taken.name)", to: directory + "/whole")
        let whole = try #require(FileManager.default.contents(atPath: directory + "/whole"))
        #expect(BackupArchiveReader.manifestMatches(tail: whole, totalBytes: Int64(whole.count)))
        // Another backup's name, cut short before its manifest; and one with a block added in front.
        let later = "cumulus-backup-20991231T000000.000Z.tar", longer = "cumulus-backup-20991230T000000.000Z.tar"
        try Data(whole.prefix(whole.count - 4096)).write(to: URL(fileURLWithPath: directory + "/cut"))
        try shelf.upload(directory + "/cut", as: "nightly/\(later)")
        try (Data(count: BackupTarHeader.block) + whole).write(to: URL(fileURLWithPath: directory + "/longer"))
        try shelf.upload(directory + "/longer", as: "nightly/\(longer)")
        let listed = Dictionary(uniqueKeysWithValues: try source.store.backups().map { ($0.name, $0.manifestOK) })
        #expect(listed[taken.name] == true && listed[later] == false && listed[longer] == false, "\(listed)")
    }

    /// A backup larger than a part goes up as a multipart upload and comes down a range at a
    /// time, byte for byte; neither holds more than a part in memory.
    @Test func aLargeBackupGoesUpInPartsAndComesDownInRanges() throws {
        let bucket = try S3TestServer.moto().makeBucket()
        let directory = newDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Twelve MiB and a bit: two parts of five MiB (S3's least) and a short last one.
        var generator = SystemRandomNumberGenerator()
        let content = Data((0..<(12 << 20) + 12_345).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try content.write(to: URL(fileURLWithPath: directory + "/backup"))
        let shelf = S3BackupBucket(bucket)
        try shelf.upload(directory + "/backup", as: "large/backup", partBytes: 5 << 20)
        #expect(try shelf.list(prefix: "large/").map(\.bytes) == [Int64(content.count)])
        try shelf.download("large/backup", to: directory + "/copy", partBytes: 4 << 20)
        #expect(FileManager.default.contents(atPath: directory + "/copy") == content)
        #expect(throws: CloudStoreError.notFound("There is no backup large/none")) {
            try shelf.download("large/none", to: directory + "/none")
        }
    }

    @Test func aServerWithoutABackupLocationTakesNone() throws {
        let source = try TemporaryStore()
        #expect(throws: CloudStoreError.self) { try source.store.takeBackup() }
        #expect(throws: CloudStoreError.self) { try source.store.backups() }
    }
}
