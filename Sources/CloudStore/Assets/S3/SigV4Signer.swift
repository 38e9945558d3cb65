import Crypto
import Foundation

/// AWS Signature Version 4 for requests with an `Authorization` header: the canonical request,
/// the string to sign, and its HMAC-SHA256 under a key derived from the secret for the day,
/// region and service.
struct SigV4Signer: Sendable {
    /// The access key ID the `Authorization` header names.
    let accessKeyID: String
    /// Never printed: only the keys derived from it leave this value, as signatures.
    private let secretAccessKey: String
    /// The region of the credential scope, such as `us-east-1`.
    let region: String
    /// The service of the credential scope: `s3` for an object store.
    let service: String

    /// What signing a request gives: the header and the steps to it, which tests compare with
    /// AWS's published examples.
    struct Signature: Sendable {
        var canonicalRequest: String
        var stringToSign: String
        /// The signature in hex.
        var signature: String
        /// The names of the signed headers, lower case, `;`-separated.
        var signedHeaders: String
        /// The `Authorization` header's value.
        var authorization: String
    }

    init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// Signs a request.
    /// - Parameters:
    ///   - path: The path as sent, already percent-encoded (S3 paths are not encoded again).
    ///   - query: The query's names and values, not encoded.
    ///   - headers: Every header to sign, `Host` and `X-Amz-Date` included.
    ///   - payloadHash: The hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`).
    ///   - timestamp: `X-Amz-Date`'s value, as ``timestamp(_:)`` writes it.
    func sign(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)],
        payloadHash: String, timestamp: String
    ) -> Signature {
        let encodedQuery: [(name: String, value: String)] = query.map { (Self.encode($0.name), Self.encode($0.value)) }
        let sortedQuery = encodedQuery.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sortedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        var byName: [String: [String]] = [:]
        for (name, value) in headers { byName[name.lowercased(), default: []].append(Self.trimmed(value)) }
        let names = byName.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")

        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        let signature = SecureToken.hexString(
            Array(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(day: day))))
        return Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, signedHeaders: signedHeaders,
            authorization: "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)")
    }

    /// The key for one day's signatures: the secret chained through HMACs of the day, region,
    /// service and `aws4_request`.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return key
    }

    // MARK: - Pieces

    /// `X-Amz-Date`'s form of a time: `20150830T123600Z`, in UTC.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// Percent-encodes all but RFC 3986's unreserved characters (and `/` when kept), with
    /// upper-case hex digits, as SigV4 requires.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    /// The hex SHA-256 of a body.
    static func payloadHash(_ body: [UInt8]) -> String { hex(SHA256.hash(data: body)) }

    private static func hex(_ digest: SHA256.Digest) -> String { SecureToken.hexString(Array(digest)) }

    /// A header value as it is signed: trimmed, runs of spaces as one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
