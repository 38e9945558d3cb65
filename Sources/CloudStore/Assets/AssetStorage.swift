/// Where a ``CloudStore`` keeps the bytes of asset blobs. Their rows (sizes, which records hold
/// them) stay in each environment's database whichever is chosen.
public enum AssetStorage: Sendable, Hashable, CustomStringConvertible {
    /// Files under the data directory: `containers/<container>/<environment>-assets/`.
    case dataDirectory
    /// Files under another directory, laid out as under the data directory: a volume shared by
    /// replicas on one host.
    case directory(String)
    /// An S3-compatible object store, for replicas on several hosts.
    case s3(S3AssetConfiguration)

    /// How the choice reads in logs and banners; never shows a secret.
    public var description: String {
        switch self {
        case .dataDirectory: "files in the data directory"
        case .directory(let path): "files in \(path)"
        case .s3(let configuration): configuration.description
        }
    }
}
