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
}
