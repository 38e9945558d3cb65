import CLinux
import Glibc
import Logging
import Synchronization

/// A swift-log handler that formats lines as
/// `2026-11-22T04:44:12.123Z info cumulus.http: message key=value` and hands them to a shared
/// `BufferedLogWriter`, so logging never costs a write(2) per line.
///
/// ```swift
/// let writer = BufferedLogWriter(descriptor: 1)
/// LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, writer: writer) }
/// defer { writer.stop() }
/// ```
public struct BufferedLogHandler: LogHandler {
    /// The logger's label.
    public let label: String
    /// Where lines go.
    public let writer: BufferedLogWriter
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    /// Creates a handler.
    public init(label: String, writer: BufferedLogWriter, logLevel: Logger.Level = .info) {
        self.label = label
        self.writer = writer
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let message = event.message.description
        var line = ""
        line.reserveCapacity(48 + label.utf8.count + message.utf8.count)
        LogTimestamp.append(to: &line)
        line += " "
        line += event.level.rawValue
        line += " "
        line += label
        line += ": "
        line += message
        let merged: Logger.Metadata
        if let extra = event.metadata, !extra.isEmpty {
            merged = metadata.merging(extra) { _, new in new }
        } else {
            merged = metadata
        }
        if !merged.isEmpty {
            for key in merged.keys.sorted() {
                line += " \(key)=\(merged[key]!)"
            }
        }
        writer.write(line, urgent: event.level >= .error)
    }
}

/// Formats the current time as ISO 8601 with milliseconds, reformatting the date part only
/// once per second.
enum LogTimestamp {
    private static let cache = Mutex<(second: Int64, text: String)>((-1, ""))

    /// Appends the current time to `line`.
    static func append(to line: inout String) {
        var seconds: Int64 = 0
        var nanoseconds = 0
        CLinux_realtime(&seconds, &nanoseconds)
        let prefix = cache.withLock { cache -> String in
            if cache.second != seconds {
                var time = time_t(seconds)
                var parts = tm()
                gmtime_r(&time, &parts)
                cache = (seconds, "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))")
            }
            return cache.text
        }
        let millis = nanoseconds / 1_000_000
        line += prefix
        line += millis < 10 ? ".00" : millis < 100 ? ".0" : "."
        line += String(millis)
        line += "Z"
    }

    private static func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
