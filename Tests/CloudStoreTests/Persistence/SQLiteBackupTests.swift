import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Backups of a data directory on SQLite taken while writers write, and their restores: every
/// write acknowledged before the backup began comes back, every restored file is sound, change
/// tokens from before expire, and a damaged backup or a directory in use changes nothing.
@Suite(.enabled(if: TestBackend.isSQLite, "Backs up a data directory on SQLite"))
struct SQLiteBackupTests {
    let other = try! ContainerIdentifier("iCloud.com.example.Other")

    /// The names of the public records of `container` a fresh sync gives.
    private func names(_ store: CloudStore, _ container: ContainerIdentifier) throws -> Set<String> {
        var names = Set<String>()
        var token: String?
        repeat {
            let changes = try store.database(container, .development, .public, as: .operator()).zoneChanges(syncToken: token)
            for case .record(let record) in changes.records { names.insert(record.recordName) }
            token = changes.moreComing ? changes.syncToken : nil
        } while token != nil
        return names
    }

    /// Every `.sqlite` file under `directory`, by path relative to it.
    private func databases(in directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".sqlite") }.sorted()
    }

    /// The identity (inode) of every file and folder under `directory` but the lock and SQLite's
    /// `-wal` and `-shm` files (which SQLite itself makes and removes), by relative path: a
    /// restore replaces by renaming, so one that replaced anything changes it.
    private func fingerprint(_ directory: String) throws -> [String: Int] {
        var found: [String: Int] = [:]
        for relative in FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
        where relative != DataDirectoryLock.fileName && !relative.hasSuffix("-wal") && !relative.hasSuffix("-shm") {
            found[relative] = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(relative)")[.systemFileNumber] as? Int
        }
        return found
    }

    @Test func aBackupTakenWhileWritersWriteRestoresEveryAcknowledgedWriteAndExpiresOlderTokens() throws {
        let source = try TemporaryStore(controlledClock: false)
        try source.store.createContainer(other)
        let notes = try source.database()
        let blob = try storeBlob(source)
        let tokenBefore = try notes.zoneChanges(syncToken: nil).syncToken

        // Four writers, three in one environment and one in another, each noting what was
        // acknowledged, until told to stop.
        let acknowledged = Mutex<[Int: [String]]>([:])
        let failures = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for writer in 0..<4 {
            let container = writer == 3 ? other : source.container
            let database = try source.store.database(container, .development, .public, as: .operator())
            DispatchQueue.global().async(group: group) {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    let name = "w\(writer)-\(index)"
                    do {
                        _ = try database.create("Note", name, ["title": .string(name)])
                        acknowledged.withLock { $0[writer, default: []].append(name) }
                    } catch {
                        failures.withLock { $0.append("\(name): \(error)") }
                    }
                    index += 1
                }
            }
        }
        try waitUntil(timeout: 60) { acknowledged.withLock { $0.count == 4 && $0.values.allSatisfy { $0.count >= 20 } } }
        let beforeBackup = acknowledged.withLock { $0 }
        let file = source.directory + "-backup.tar"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try CloudStore.backUp(source.store.configuration, to: file, options: BackupOptions(programVersion: "test"))
        // The writers went on during the backup.
        let atEnd = acknowledged.withLock { $0 }
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(atEnd.values.map(\.count).reduce(0, +) > beforeBackup.values.map(\.count).reduce(0, +))
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)

        let restored = try TemporaryDirectory()
        let configuration = CloudStoreConfiguration(dataDirectory: restored.path)
        #expect(try CloudStore.restore(configuration, from: file) == 4)
        for database in databases(in: restored.path) {
            #expect(try RawSQLite(path: "\(restored.path)/\(database)").rows("PRAGMA integrity_check") == [["ok"]], "\(database)")
        }
        #expect(databases(in: restored.path).contains("containers/\(other.rawValue)/development.sqlite"))
        let store = try CloudStore(configuration: configuration)
        let restoredNotes = try names(store, source.container)
        let restoredOther = try names(store, other)
        for (writer, names) in beforeBackup {
            let missing = Set(names).subtracting(writer == 3 ? restoredOther : restoredNotes)
            #expect(missing.isEmpty, "writer \(writer) lost \(missing.sorted().prefix(5))")
        }
        #expect(restoredNotes.contains("with-file"))
        #expect(
            SQLiteBackup.blobs(in: "\(restored.path)/containers/\(source.container.rawValue)/development-assets").map { $0.hasSuffix(blob) }
                == [true])

        // The restore gave the environment a new incarnation: the source's token has expired there.
        do {
            let changes = try store.database(source.container, .development, .public, as: .operator()).zoneChanges(syncToken: tokenBefore)
            Issue.record("a token from before the restore was accepted: \(changes.records.count) changes")
        } catch CloudStoreError.changeTokenExpired {}
        // The source keeps its own.
        #expect(throws: Never.self) { _ = try notes.zoneChanges(syncToken: tokenBefore) }
    }

    /// A container whose identifier is as long as may be (255 bytes) is backed up and restored:
    /// its paths, past what a ustar header holds, go in pax extended headers, which `tar` reads.
    @Test func aContainerWithTheLongestIdentifierIsBackedUpAndRestored() throws {
        let identifier = "iCloud." + String(repeating: "a", count: 248)
        let source = try TemporaryStore(container: identifier, controlledClock: false)
        _ = try source.database().create("Note", "kept", ["title": .string("kept")])
        let file = source.directory + "-backup.tar"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try CloudStore.backUp(source.store.configuration, to: file, options: BackupOptions(includeAssets: false))
        #expect(BackupArchiveReader.manifestMatches(file))

        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        listing.arguments = ["-tf", file]
        let output = Pipe()
        listing.standardOutput = output
        try listing.run()
        let names = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        listing.waitUntilExit()
        #expect(names.contains { $0 == "containers/\(identifier)/development.sqlite" }, "\(names)")

        let target = try TemporaryDirectory()
        let configuration = CloudStoreConfiguration(dataDirectory: target.path)
        try CloudStore.restore(configuration, from: file)
        let restored = try CloudStore(configuration: configuration).database(source.container, .development, .public, as: .operator())
        #expect(try restored.lookup([RecordLookup("kept")]).first?.record?.fields["title"] == .string("kept"))
    }

    @Test func aDamagedBackupOrADirectoryInUseIsRefusedWithNothingReplaced() throws {
        let source = try TemporaryStore(controlledClock: false)
        _ = try source.database().create("Note", "kept", ["title": .string("kept")])
        let file = source.directory + "-backup.tar"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try CloudStore.backUp(source.store.configuration, to: file, options: BackupOptions(includeAssets: false))

        // A directory a store has open: refused, its files untouched.
        let before = try fingerprint(source.directory)
        do {
            try CloudStore.restore(source.store.configuration, from: file)
            Issue.record("a restore replaced the files of a directory in use")
        } catch CloudStoreError.badRequest(let reason) {
            #expect(reason.contains("stop it before restoring"))
        }
        #expect(try fingerprint(source.directory) == before)

        // A restored directory, then the same backup with one byte flipped: refused, untouched.
        let target = try TemporaryDirectory()
        let configuration = CloudStoreConfiguration(dataDirectory: target.path)
        try CloudStore.restore(configuration, from: file)
        _ = try CloudStore(configuration: configuration).database(source.container, .development, .public, as: .operator())
            .create("Note", "after-restore")
        let restored = try fingerprint(target.path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        for offset in [bytes.count / 2, 700, bytes.count - 1_200] {
            let damaged = source.directory + "-damaged-\(offset).tar"
            defer { try? FileManager.default.removeItem(atPath: damaged) }
            bytes[offset] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: damaged))
            bytes[offset] ^= 0x01
            do {
                try CloudStore.restore(configuration, from: damaged)
                Issue.record("a backup damaged at \(offset) was restored")
            } catch CloudStoreError.badRequest(let reason) {
                #expect(reason.contains("Nothing was replaced") || reason.contains("not a backup"), "\(reason)")
            }
            #expect(try fingerprint(target.path) == restored, "damaged at \(offset)")
        }
        #expect(try names(CloudStore(configuration: configuration), source.container) == ["kept", "after-restore"])
    }

    /// Uploads one blob to the store's public database and saves a record naming it; returns
    /// the blob's file name (its SHA-256 in hex).
    private func storeBlob(_ temporary: TemporaryStore) throws -> String {
        let notes = try temporary.database()
        let ticket = try #require(
            try notes.assetUploadTickets([AssetUploadRequest(recordName: "with-file", recordType: "Note", fieldName: "file")]).first)
        let uploaded = try temporary.store.uploadAsset(ticket: ticket.ticket, content: Array("the file's bytes".utf8))
        _ = try notes.create(
            "Note", "with-file",
            ["file": .asset(Asset(fileChecksum: uploaded.fileChecksum, size: uploaded.size, receipt: uploaded.receipt))])
        return try #require(Data(base64Encoded: uploaded.fileChecksum)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func blobsKeptInAnotherDirectoryGoBackThereAndABackupWithoutBlobsKeepsTheDirectorysOwn() throws {
        let assets = try TemporaryDirectory()
        let source = try TemporaryStore(controlledClock: false) { $0.assetStorage = .directory(assets.path) }
        let blob = try storeBlob(source)
        let folder = "containers/\(source.container.rawValue)/development-assets"
        let file = source.directory + "-backup.tar", bare = source.directory + "-bare.tar"
        defer { for path in [file, bare] { try? FileManager.default.removeItem(atPath: path) } }
        try CloudStore.backUp(source.store.configuration, to: file)
        try CloudStore.backUp(source.store.configuration, to: bare, options: BackupOptions(includeAssets: false))

        // Restored with its blobs kept in another (empty) directory: the blob goes there.
        let target = try TemporaryDirectory(), targetAssets = try TemporaryDirectory()
        var configuration = CloudStoreConfiguration(dataDirectory: target.path)
        configuration.assetStorage = .directory(targetAssets.path)
        try CloudStore.restore(configuration, from: file)
        #expect(SQLiteBackup.blobs(in: "\(targetAssets.path)/\(folder)").map { $0.hasSuffix(blob) } == [true])
        #expect(!FileManager.default.fileExists(atPath: "\(target.path)/\(SQLiteBackup.assetsPrefix)"))

        // Restored into the data directory, then the backup without blobs over it: the blob stays.
        let local = try TemporaryDirectory()
        let inDirectory = CloudStoreConfiguration(dataDirectory: local.path)
        try CloudStore.restore(inDirectory, from: file)
        #expect(SQLiteBackup.blobs(in: "\(local.path)/\(folder)").map { $0.hasSuffix(blob) } == [true])
        try CloudStore.restore(inDirectory, from: bare)
        #expect(SQLiteBackup.blobs(in: "\(local.path)/\(folder)").map { $0.hasSuffix(blob) } == [true])
        #expect(try names(CloudStore(configuration: inDirectory), source.container) == ["with-file"])
    }
}
