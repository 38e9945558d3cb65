import CloudStore

/// Where asset blobs go, read alike by `serve` and by every command that opens the data
/// directory: `--assets` (or `CUMULUS_ASSETS`) is a directory or `s3://BUCKET`; a bucket takes
/// its server from `--assets-endpoint` (`CUMULUS_ASSETS_ENDPOINT`), its region from
/// `--assets-region` (`CUMULUS_ASSETS_REGION`), and its keys only from the environment, so that
/// they never show in a process listing.
enum AssetStorageSetting {
    /// The variable holding the access key ID.
    static let accessKeyVariable = "CUMULUS_ASSETS_ACCESS_KEY_ID"
    /// The variable holding the secret access key.
    static let secretKeyVariable = "CUMULUS_ASSETS_SECRET_ACCESS_KEY"

    /// Why a choice cannot be used, without any key in it.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The storage the values choose: the data directory when `location` is `nil` or empty.
    /// An endpoint without a bucket is refused unless it serves the backups' bucket
    /// (`endpointServesBackups`).
    /// - Throws: ``Problem`` saying what is missing or malformed.
    static func resolve(
        location: String?, endpoint: String?, region: String?, environment: [String: String], endpointServesBackups: Bool = false
    ) throws(Problem) -> AssetStorage {
        guard let location, !location.isEmpty else {
            guard endpoint == nil || endpointServesBackups else {
                throw Problem(description: "--assets-endpoint is for --assets s3://BUCKET; give both")
            }
            return .dataDirectory
        }
        guard location.lowercased().hasPrefix("s3://") else {
            guard endpoint == nil || endpointServesBackups else {
                throw Problem(description: "--assets-endpoint is for --assets s3://BUCKET, not a directory")
            }
            return .directory(location)
        }
        let bucket = String(location.dropFirst("s3://".count))
        guard !bucket.contains("/") else { throw Problem(description: "--assets takes s3://BUCKET, without a path") }
        guard let endpoint, !endpoint.isEmpty else {
            throw Problem(
                description:
                    "--assets \(location) needs the S3 server's URL in --assets-endpoint (or CUMULUS_ASSETS_ENDPOINT), such as http://127.0.0.1:8333"
            )
        }
        guard let accessKey = environment[accessKeyVariable], !accessKey.isEmpty, let secretKey = environment[secretKeyVariable],
            !secretKey.isEmpty
        else {
            throw Problem(description: "--assets \(location) needs the bucket's keys in \(accessKeyVariable) and \(secretKeyVariable)")
        }
        do {
            return .s3(
                try S3AssetConfiguration(
                    endpoint: endpoint, bucket: bucket, region: region.flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1",
                    accessKeyID: accessKey,
                    secretAccessKey: secretKey))
        } catch {
            throw Problem(description: (error as? CloudStoreError)?.reason ?? "invalid S3 asset store settings")
        }
    }

    /// Where backups go: a directory, or `s3://BUCKET/PREFIX` on the asset store's S3 server,
    /// region and keys.
    /// - Throws: ``Problem`` saying what is missing or malformed.
    static func backupLocation(_ location: String, endpoint: String?, region: String?, environment: [String: String]) throws(Problem)
        -> BackupLocation
    {
        guard location.lowercased().hasPrefix("s3://") else { return .directory(location) }
        let (bucket, key) = try bucketAndKey(location)
        let prefix = key.isEmpty || key.hasSuffix("/") ? key : key + "/"
        return .bucket(try bucketConfiguration(bucket, endpoint: endpoint, region: region, environment: environment), prefix: prefix)
    }

    /// The bucket and object key of `s3://BUCKET/KEY`, reached with the asset store's S3 server,
    /// region and keys.
    /// - Throws: ``Problem`` saying what is missing or malformed.
    static func object(_ location: String, endpoint: String?, region: String?, environment: [String: String]) throws(Problem)
        -> (S3AssetConfiguration, key: String)
    {
        let (bucket, key) = try bucketAndKey(location)
        guard !key.isEmpty, !key.hasSuffix("/") else { throw Problem(description: "\(location) names no object: give s3://BUCKET/KEY") }
        return (try bucketConfiguration(bucket, endpoint: endpoint, region: region, environment: environment), key)
    }

    private static func bucketAndKey(_ location: String) throws(Problem) -> (String, String) {
        let rest = location.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard !bucket.isEmpty else { throw Problem(description: "\(location) names no bucket: give s3://BUCKET/PREFIX") }
        return (bucket, String(rest.dropFirst(bucket.count + 1)))
    }

    private static func bucketConfiguration(_ bucket: String, endpoint: String?, region: String?, environment: [String: String])
        throws(Problem) -> S3AssetConfiguration
    {
        guard
            case .s3(let configuration) = try resolve(
                location: "s3://" + bucket, endpoint: endpoint, region: region, environment: environment)
        else { throw Problem(description: "s3://\(bucket) is not a bucket") }
        return configuration
    }
}
