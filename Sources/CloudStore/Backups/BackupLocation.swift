import Foundation

/// Where a server keeps the backups it takes (on a schedule or when an operator asks): a
/// directory, or a prefix of an S3-compatible bucket reached with the asset store's S3 settings.
public enum BackupLocation: Sendable, Hashable, CustomStringConvertible {
    /// A directory on this machine.
    case directory(String)
    /// Objects of `bucket` whose keys begin with `prefix` (empty, or ending in `/`).
    case bucket(S3AssetConfiguration, prefix: String)

    /// The location as people write it: the directory, or `s3://BUCKET/PREFIX`.
    public var description: String {
        switch self {
        case .directory(let path): path
        case .bucket(let bucket, let prefix): "s3://\(bucket.bucket)/\(prefix)"
        }
    }
}

/// The backups a server takes: where, how often, and how many it keeps.
public struct BackupSchedule: Sendable, Hashable {
    /// Where backups go, and where the console lists them.
    public var location: BackupLocation
    /// How long between two scheduled backups; `nil`: only when asked.
    public var interval: Duration?
    /// How many backups are kept; the oldest beyond it are deleted after each new one.
    public var keep: Int
    /// The version of cumulus its manifests record.
    public var programVersion = "unknown"

    /// A schedule of backups into `location`.
    public init(location: BackupLocation, interval: Duration? = nil, keep: Int = 7) {
        self.location = location
        self.interval = interval
        self.keep = keep
    }
}

/// One backup in a ``BackupLocation``.
public struct StoredBackup: Sendable, Codable, Equatable {
    /// Its file or object name (without the location's prefix).
    public var name: String
    /// When it was taken, as its name says (UTC).
    public var created: Date
    /// Its size in bytes.
    public var bytes: Int64
    /// Whether its manifest was read and every member it lists is in the file with its size (a
    /// backup of a data directory; in a bucket, the members' sizes add up to the object's); `nil`
    /// for a PostgreSQL dump, which has none.
    public var manifestOK: Bool?
}

/// The last backup this process took successfully, for monitoring (backup age and size).
public struct LastBackup: Sendable, Equatable {
    /// The backup.
    public var backup: StoredBackup
    /// When it was finished.
    public var finished: Date
}

/// What a backup holds, for a download.
public enum BackupContent: Sendable {
    /// Its file, sent from the disk.
    case file(String)
    /// A private copy read from a bucket into a file of its own folder: whoever sends it removes
    /// the folder once the file is open (the open file keeps its bytes until it is closed).
    case copy(String)

    /// The file to send.
    public var path: String {
        switch self {
        case .file(let path), .copy(let path): path
        }
    }
}
