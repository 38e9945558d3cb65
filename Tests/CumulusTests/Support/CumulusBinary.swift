import Foundation
import TestSupport

/// Runs the built `cumulus` executable, as a user would from a shell.
enum CumulusBinary {
    /// The executable beside the test bundle.
    static var path: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("cumulus").path
    }

    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `cumulus` with `arguments` and optional standard input (in `directory` when given),
    /// and waits for it. With `meanwhile`, calls it while the command runs (what a command that
    /// follows a stream waits for), and ends the command if it still runs after a few hundred calls.
    @discardableResult
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:], directory: String? = nil,
        meanwhile: (() throws -> Void)? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        // Read on their own threads, so that a command writing much never waits for this one.
        let out = Drained(output), err = Drained(error)
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        if let meanwhile {
            var calls = 0
            while process.isRunning {
                guard calls < 600 else {
                    process.terminate()
                    break
                }
                try meanwhile()
                calls += 1
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: out.text(), error: err.text())
    }

    /// A pipe read to its end on a thread of its own.
    private final class Drained: @unchecked Sendable {
        // Safe: `data` is written once, before `done` is signalled, and read only after waiting for it.
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ pipe: Pipe) {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func text() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
