import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// A child process commits atomic batches and is killed with SIGKILL at random moments. After
/// every kill, every batch it reported committed must be there, no batch partly there, the file
/// intact, and each zone's change log without a gap.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct CrashSafetyTests {
    static var writerPath: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("CrashWriter").path
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CrashSafetyTests.writerPath)))
    func killedWritersLoseNothingTheyReportedAndLeaveNoPartialBatch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-crash-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var reported = Set<Int64>()
        var random = SeededGenerator(seed: 7)

        for round in 1...50 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.writerPath)
            child.arguments = [directory]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            // Let it get going (opening files takes a moment on the first rounds), then kill at a random moment.
            usleep(UInt32(20_000 + random.next(below: 120_000)))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "round \(round): the writer exited on its own")
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("committed ") {
                if let batch = Int64(line.dropFirst("committed ".count)) { reported.insert(batch) }
            }
            try verify(directory, reported: reported, round: round)
        }
        #expect(reported.count > 50, "the writer should commit many batches over 50 rounds")
    }

    private func verify(_ directory: String, reported: Set<Int64>, round: Int) throws {
        let path = "\(directory)/containers/iCloud.com.example.Crash/development.sqlite"
        guard FileManager.default.fileExists(atPath: path) else { return }
        let file = try RawSQLite(path: path)
        #expect(try file.rows("PRAGMA integrity_check") == [["ok"]], "round \(round)")

        // Batches present and their sizes, read through the store as a client would.
        let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: directory))
        let database = try store.database(
            try ContainerIdentifier("iCloud.com.example.Crash"), .development, database: .private("_crash"), as: .operator())
        let last: Int64
        if case .int64(let value)? = try database.lookup([RecordLookup("progress")], zoneName: "Z").first?.record?.fields["last"] {
            last = value
        } else {
            last = -1
        }
        if let highest = reported.max() {
            #expect(last >= highest, "round \(round): batch \(highest) was reported but progress is \(last)")
        }

        let counts = try file.rows("SELECT name FROM records WHERE name LIKE 'b%'").reduce(into: [Int64: Int]()) { counts, row in
            let batch = Int64(row[0].dropFirst().split(separator: "-")[0])!
            counts[batch, default: 0] += 1
        }
        for batch in reported {
            #expect(counts[batch] == 10, "round \(round): reported batch \(batch) has \(counts[batch] ?? 0) of 10 records")
        }
        for (batch, count) in counts { #expect(count == 10, "round \(round): batch \(batch) is partly there (\(count) of 10)") }
        #expect(Set(counts.keys) == (last >= 0 ? Set(0...last) : []), "round \(round): batches present must be exactly 0…\(last)")

        for zone in try file.rows("SELECT zone, count(*), min(seq), max(seq) FROM changes GROUP BY zone") {
            #expect(zone[1] == zone[3] && zone[2] == "1", "round \(round): zone \(zone[0]) change log has a gap: \(zone)")
        }
    }
}
