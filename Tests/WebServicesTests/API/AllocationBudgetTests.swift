import Foundation
import Testing
import TestSupport

/// What a request costs in allocations, counted in a release build of the server (the allocation
/// probe: the API with its access log on, one keep-alive client), since a debug build allocates
/// several times as often. The test script builds the probe; without it the test fails in CI.
@Suite struct AllocationBudgetTests {
    static var probePath: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("release/AllocationProbe").path
    }

    /// Calls to malloc per request, by case, from the probe.
    static func measure() throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: probePath)
        process.arguments = ["1000"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("the allocation probe failed") }
        var counts: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { counts[String(parts[0])] = value }
        }
        return counts
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: probePath) || ProcessInfo.processInfo.environment["CI"] != nil))
    func readQueryAndCreateStayWithinTheirAllocations() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.probePath), "build it: swift build -c release --product AllocationProbe")
        let counts = try Self.measure()
        // What this build allocates, with a little room: an allocation added to every request
        // anywhere on these paths fails here.
        #expect(try #require(counts["read"]) <= 42)
        #expect(try #require(counts["query"]) <= 64)
        #expect(try #require(counts["create"]) <= 94)
        // The budgets the performance work aims for. A read now makes 38–40 calls, inside its
        // budget but too near it for a count that moves a call or two between runs to be held
        // to it; query and create are not there yet.
        withKnownIssue("read ≤ 40 calls to malloc: met, by one or two calls", isIntermittent: true) {
            #expect(counts["read"]! <= 40)
        }
        withKnownIssue("query ≤ 40, create ≤ 80 calls to malloc: not reached yet") {
            #expect(counts["query"]! <= 40)
            #expect(counts["create"]! <= 80)
        }
    }
}
