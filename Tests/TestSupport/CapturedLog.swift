import Logging
import Synchronization

/// Log lines kept in memory, so a test can read what a server logged.
public final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// Creates an empty log.
    public init() {}

    /// Adds a line.
    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line so far.
    public var all: [String] { lines.withLock { $0 } }

    /// A logger writing here at `level` and above.
    public func logger(label: String = "test", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in CapturingLogHandler(log: self) }
        logger.logLevel = level
        return logger
    }
}

/// A swift-log handler appending `level message metadata` lines to a ``CapturedLog``.
public struct CapturingLogHandler: LogHandler {
    /// Where lines go.
    public let log: CapturedLog
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    /// Metadata of the logger.
    public var metadata: Logger.Metadata = [:]

    /// Creates a handler writing to `log`.
    public init(log: CapturedLog) { self.log = log }

    /// The logger's metadata value for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Appends one line: the level, the message, then the metadata as `key=value`.
    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let suffix = all.keys.sorted().map { " \($0)=\(all[$0]!)" }.joined()
        log.append("\(event.level) \(event.message)\(suffix)")
    }
}
