import CloudStore

/// The asset stores tests run against: files in the data directory, and a fresh bucket on the
/// shared moto server.
public enum AssetBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case files, moto

    /// The storage to configure a store with.
    public func storage() throws -> AssetStorage {
        switch self {
        case .files: .dataDirectory
        case .moto: .s3(try S3TestServer.moto().makeBucket())
        }
    }

    public var description: String { rawValue }
}
