import CLinux
import Foundation
import Glibc
import Synchronization

/// Collects log lines in memory and writes them in batches: when the buffer passes a size, on a
/// background timer, for every line at `error` or above, and on `flush()`. One write(2) covers
/// many lines, so an access log at 100 k requests/s costs a few syscalls per second.
public final class BufferedLogWriter: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var stopped = false
        /// `2026-11-22T04:44:12` for `second`, reformatted only when the second changes.
        var second: Int64 = -1
        var secondText: [UInt8] = []
    }

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let state = Mutex(State())
    // Serializes write(2) calls so that batches never interleave.
    private let writing = Mutex(())
    private let flushThreshold: Int

    /// Creates a writer for an open descriptor (1 for standard output, 2 for standard error).
    /// - Parameters:
    ///   - descriptor: Where lines go.
    ///   - flushThreshold: Buffered bytes that trigger a write by the logging thread.
    ///   - flushInterval: How often a background thread writes whatever is buffered.
    public init(descriptor: Int32, flushThreshold: Int = 64 * 1024, flushInterval: Duration = .milliseconds(200)) {
        self.descriptor = descriptor
        self.ownsDescriptor = false
        self.flushThreshold = flushThreshold
        startFlusher(interval: flushInterval)
    }

    /// Creates a writer appending to the file at `path`.
    /// - Throws: `HTTPServerError` if the file cannot be opened.
    public init(path: String, flushThreshold: Int = 64 * 1024, flushInterval: Duration = .milliseconds(200)) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HTTPServerError.system("open \(path)", errno) }
        descriptor = fd
        ownsDescriptor = true
        self.flushThreshold = flushThreshold
        startFlusher(interval: flushInterval)
    }

    deinit {
        flush()
        if ownsDescriptor { close(descriptor) }
    }

    /// Queues one line (a newline is appended); `urgent` writes it at once.
    public func write(_ line: String, urgent: Bool = false) {
        let full = state.withLock { state -> Bool in
            state.buffer.append(contentsOf: line.utf8)
            state.buffer.append(0x0A)
            return state.buffer.count >= flushThreshold
        }
        if full || urgent { flush() }
    }

    /// Queues `<timestamp> <level> <label>: <message><suffix>` as one line.
    func writeEntry(level: String, label: String, message: String, suffix: String, urgent: Bool) {
        writeEntry(level: level, label: label, urgent: urgent) { line in
            line.append(contentsOf: message.utf8)
            line.append(contentsOf: suffix.utf8)
        }
    }

    /// Queues `<timestamp> <level> <label>: <message>` as one line, `message` appending its
    /// bytes straight into the buffer under the lock (no intermediate string or array: the
    /// access log runs this for every request), so it must be quick and must not log.
    func writeEntry(level: String, label: String, urgent: Bool, message: (inout [UInt8]) -> Void) {
        var seconds: Int64 = 0
        var nanoseconds = 0
        CLinux_realtime(&seconds, &nanoseconds)
        let millis = nanoseconds / 1_000_000
        let full = state.withLock { state -> Bool in
            if state.second != seconds {
                state.second = seconds
                state.secondText = BufferedLogWriter.formatSecond(seconds)
            }
            state.buffer.append(contentsOf: state.secondText)
            state.buffer.append(UInt8(ascii: "."))
            state.buffer.append(UInt8(ascii: "0") + UInt8(millis / 100))
            state.buffer.append(UInt8(ascii: "0") + UInt8(millis / 10 % 10))
            state.buffer.append(UInt8(ascii: "0") + UInt8(millis % 10))
            state.buffer.append(contentsOf: "Z ".utf8)
            state.buffer.append(contentsOf: level.utf8)
            state.buffer.append(UInt8(ascii: " "))
            state.buffer.append(contentsOf: label.utf8)
            state.buffer.append(contentsOf: ": ".utf8)
            message(&state.buffer)
            state.buffer.append(0x0A)
            return state.buffer.count >= flushThreshold
        }
        if full || urgent { flush() }
    }

    /// Writes everything buffered.
    public func flush() {
        writing.withLock { _ in
            let bytes = state.withLock { state -> [UInt8] in
                let bytes = state.buffer
                state.buffer = []
                state.buffer.reserveCapacity(bytes.count)
                return bytes
            }
            guard !bytes.isEmpty else { return }
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }

    /// Stops the background thread after a final flush.
    public func stop() {
        state.withLock { $0.stopped = true }
        flush()
    }

    private func startFlusher(interval: Duration) {
        let micros = UInt32(clamping: interval.nanoseconds / 1000)
        let thread = Thread { [weak self] in
            while true {
                usleep(max(1000, micros))
                guard let self else { return }
                if self.state.withLock({ $0.stopped }) { return }
                self.flush()
            }
        }
        thread.name = "cumulus-log-flush"
        thread.start()
    }

    /// `YYYY-MM-DDTHH:MM:SS` in UTC.
    static func formatSecond(_ seconds: Int64) -> [UInt8] {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return Array(
            "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
                .utf8)
    }
}
