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
        var suffix = ""
        let merged: Logger.Metadata
        if let extra = event.metadata, !extra.isEmpty {
            merged = metadata.merging(extra) { _, new in new }
        } else {
            merged = metadata
        }
        if !merged.isEmpty {
            for key in merged.keys.sorted() {
                suffix += " \(key)=\(merged[key]!)"
            }
        }
        writer.writeEntry(
            level: event.level.rawValue, label: label, message: event.message.description,
            suffix: suffix, urgent: event.level >= .error
        )
    }
}
