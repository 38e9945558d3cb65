/// An S3-compatible bucket to keep asset blobs in, addressed by path
/// (`http://host:port/bucket/key`), signed with AWS Signature Version 4.
///
/// The secret key is never part of ``description`` or of what `dump` or a debugger show.
///
/// ```swift
/// var configuration = CloudStoreConfiguration(dataDirectory: "./data")
/// configuration.assetStorage = .s3(try S3AssetConfiguration(
///     endpoint: "http://127.0.0.1:8333", bucket: "cumulus-assets", accessKeyID: "…", secretAccessKey: "…"))
/// ```
public struct S3AssetConfiguration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The bucket; it must exist.
    public var bucket: String
    /// The region signatures name (`us-east-1` unless the server wants another).
    public var region: String
    /// The access key ID.
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// How long connecting, and each read or write of a request, may wait.
    public var timeout: Duration = .seconds(30)

    /// Creates a configuration.
    /// - Parameters:
    ///   - endpoint: The server's URL, `http://host[:port]`; plain HTTP only, so the store is
    ///     meant for a server on the same host or a private network.
    ///   - bucket: The bucket's name.
    ///   - region: The region signatures name.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming what is wrong with a value; never
    ///   quoting a key.
    public init(endpoint: String, bucket: String, region: String = "us-east-1", accessKeyID: String, secretAccessKey: String) throws {
        (host, port) = try Self.parseEndpoint(endpoint)
        guard Self.isBucketName(bucket) else {
            throw CloudStoreError.badRequest(
                "'\(bucket)' is not a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit"
            )
        }
        guard !region.isEmpty, region.utf8.allSatisfy({ $0.isLowercaseLetterOrDigit || $0 == UInt8(ascii: "-") }) else {
            throw CloudStoreError.badRequest("'\(region)' is not a region name, such as us-east-1")
        }
        guard !accessKeyID.isEmpty, !secretAccessKey.isEmpty else {
            throw CloudStoreError.badRequest("The S3 asset store needs an access key ID and a secret access key")
        }
        guard accessKeyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ",") }) else {
            throw CloudStoreError.badRequest("The access key ID may hold only printable ASCII characters without spaces, '/' or ','")
        }
        self.bucket = bucket
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// The server's URL.
    public var endpoint: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port)"
    }

    /// `s3://bucket at http://host:port (region)`.
    public var description: String { "s3://\(bucket) at \(endpoint) (\(region))" }

    /// As ``description``: the secret stays out of debug output too.
    public var debugDescription: String { description }

    /// Every field but the secret key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "bucket": bucket, "region": region, "accessKeyID": accessKeyID, "secretAccessKey": "<redacted>",
                "timeout": timeout,
            ])
    }

    // MARK: - Checks

    private static func parseEndpoint(_ endpoint: String) throws -> (host: String, port: Int) {
        let lowered = endpoint.lowercased()
        if lowered.hasPrefix("https://") {
            throw CloudStoreError.badRequest(
                "The S3 asset store speaks plain HTTP only: give an http:// endpoint on this host or a private network")
        }
        guard lowered.hasPrefix("http://") else {
            throw CloudStoreError.badRequest("'\(endpoint)' is not an endpoint URL such as http://127.0.0.1:8333")
        }
        var rest = Substring(endpoint.dropFirst("http://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            throw CloudStoreError.badRequest("The endpoint is only http://host[:port], without user, path or query")
        }
        var host = rest
        var port = 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw CloudStoreError.badRequest("'\(endpoint)' has an unclosed IPv6 address")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                    throw CloudStoreError.badRequest("'\(endpoint)' has an invalid port")
                }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            guard let number = Int(rest[rest.index(after: colon)...]) else {
                throw CloudStoreError.badRequest("'\(endpoint)' has an invalid port")
            }
            host = rest[..<colon]
            port = number
        }
        guard !host.isEmpty, (1...65535).contains(port), host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw CloudStoreError.badRequest("'\(endpoint)' is not an endpoint URL such as http://127.0.0.1:8333")
        }
        return (String(host), port)
    }

    private static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), bytes.first!.isLowercaseLetterOrDigit, bytes.last!.isLowercaseLetterOrDigit else {
            return false
        }
        return bytes.allSatisfy { $0.isLowercaseLetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }
}

extension UInt8 {
    fileprivate var isLowercaseLetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

extension S3AssetConfiguration {
    /// Creates the bucket this configuration names, on its server with its keys; one that
    /// exists and is ours already is no failure. For setting a bucket up before the first
    /// start: the store itself never creates one.
    public func createBucket() throws {
        try S3AssetStore(self).createBucket()
    }
}
