import Foundation

/// Asset blobs as objects of an S3-compatible bucket: `<container>/<environment>/<first two hex
/// digits>/<sha>`. Content-addressed keys make every PUT of a blob write the same bytes, so an
/// upload stages by writing the object itself; the commit, with the environment's writer held,
/// checks it is still there (a collection of the same blob may have crossed the upload) and
/// writes it again if not.
struct S3AssetStore: AssetStore {
    let bucket: String
    let client: HTTPClient
    let signer: SigV4Signer

    /// The hex SHA-256 of an empty body.
    private static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Creates a store; nothing is sent until the first request.
    init(_ configuration: S3AssetConfiguration) {
        bucket = configuration.bucket
        client = HTTPClient(host: configuration.host, port: configuration.port, timeout: configuration.timeout)
        signer = SigV4Signer(
            accessKeyID: configuration.accessKeyID, secretAccessKey: configuration.secretAccessKey, region: configuration.region)
    }

    /// The object key of a blob.
    static func key(of sha: String, in space: EnvironmentKey) -> String {
        "\(space.container.rawValue)/\(space.environment.rawValue)/\(sha.prefix(2))/\(sha)"
    }

    // MARK: - AssetStore

    func stage(_ sha: String, _ bytes: [UInt8], in space: EnvironmentKey) throws -> StagedBlob {
        try put(Self.key(of: sha, in: space), bytes)
        return StagedBlob(sha: sha, space: space, location: nil, bytes: bytes)
    }

    func commit(_ staged: StagedBlob) throws {
        let key = Self.key(of: staged.sha, in: staged.space)
        let response = try send("HEAD", key: key)
        switch response.status {
        case 200: return
        case 404: try put(key, staged.bytes)
        default: throw failure(response, doing: "checking blob \(staged.sha)")
        }
    }

    /// Deletes the object unless a row names it: no row, no reader.
    func discard(_ staged: StagedBlob, blobIsHeld: Bool) {
        guard !blobIsHeld else { return }
        try? remove(staged.sha, in: staged.space)
    }

    func read(_ sha: String, in space: EnvironmentKey) throws -> [UInt8] {
        let response = try send("GET", key: Self.key(of: sha, in: space))
        guard response.status == 200 else {
            throw response.status == 404 ? missing(sha) : failure(response, doing: "reading blob \(sha)")
        }
        return response.body
    }

    func read(_ sha: String, range: ClosedRange<Int64>, in space: EnvironmentKey) throws -> [UInt8] {
        let response = try send(
            "GET", key: Self.key(of: sha, in: space), headers: [("Range", "bytes=\(range.lowerBound)-\(range.upperBound)")])
        switch response.status {
        case 206: return response.body
        // A server that ignores ranges sends the whole object.
        case 200: return Array(response.body.dropFirst(Int(range.lowerBound)).prefix(Int(range.upperBound - range.lowerBound + 1)))
        case 416: return []
        case 404: throw missing(sha)
        default: throw failure(response, doing: "reading blob \(sha)")
        }
    }

    func remove(_ sha: String, in space: EnvironmentKey) throws {
        let response = try send("DELETE", key: Self.key(of: sha, in: space))
        guard [200, 204, 404].contains(response.status) else { throw failure(response, doing: "removing blob \(sha)") }
    }

    // MARK: - The bucket

    /// Checks that the bucket exists and the credentials open it.
    /// - Throws: ``CloudStoreError`` saying what the server refused, or that it did not answer.
    func checkUsable() throws {
        let response = try send("HEAD", key: nil)
        guard response.status == 200 else {
            if response.status == 404 { throw CloudStoreError.internalError("The asset store has no bucket '\(bucket)'") }
            throw failure(response, doing: "opening bucket '\(bucket)'")
        }
    }

    /// Creates the bucket; one that exists and is ours already is no failure.
    func createBucket() throws {
        let response = try send("PUT", key: nil)
        guard response.status == 200 || Self.errorCode(in: response) == "BucketAlreadyOwnedByYou" else {
            throw failure(response, doing: "creating bucket '\(bucket)'")
        }
    }

    // MARK: - Requests

    private func put(_ key: String, _ bytes: [UInt8]) throws {
        let response = try send("PUT", key: key, body: bytes)
        guard response.status == 200 else { throw failure(response, doing: "writing an asset blob") }
    }

    /// Sends one signed request for an object, or for the bucket when `key` is `nil`.
    func send(
        _ method: String, key: String?, query: [(name: String, value: String)] = [], headers extra: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) throws -> HTTPClientResponse {
        let path = "/" + SigV4Signer.encode(bucket) + (key.map { "/" + SigV4Signer.encode($0, keepingSlashes: true) } ?? "")
        let timestamp = SigV4Signer.timestamp(Date())
        let payloadHash = body.isEmpty ? Self.emptyPayloadHash : SigV4Signer.payloadHash(body)
        let headers = extra + [("x-amz-content-sha256", payloadHash), ("x-amz-date", timestamp)]
        let signature = signer.sign(
            method: method, path: path, query: query, headers: [("host", client.hostHeader)] + headers, payloadHash: payloadHash,
            timestamp: timestamp)
        let queryText = query.map { "\(SigV4Signer.encode($0.name))=\(SigV4Signer.encode($0.value))" }.joined(separator: "&")
        let request = HTTPClientRequest(
            method: method, target: path + (queryText.isEmpty ? "" : "?" + queryText),
            headers: headers + [("Authorization", signature.authorization)], body: body)
        do {
            return try client.send(request)
        } catch {
            throw CloudStoreError.tryAgainLater("The asset store did not answer: \(error.description)")
        }
    }

    // MARK: - Errors

    private func missing(_ sha: String) -> CloudStoreError {
        CloudStoreError.internalError("The object of blob \(sha) is missing from the asset store")
    }

    /// What a refusal is told as. Only the error's code is taken from the body: S3 error bodies
    /// may echo the string that was signed and the access key.
    private func failure(_ response: HTTPClientResponse, doing action: String) -> CloudStoreError {
        let code = Self.errorCode(in: response).map { " \($0)" } ?? ""
        switch response.status {
        case 403, 401:
            return .internalError("The asset store refused the credentials (\(response.status)\(code)) when \(action)")
        case 500, 502, 503, 504:
            return .tryAgainLater("The asset store is unavailable (\(response.status)\(code)) when \(action)")
        default:
            return .internalError("The asset store answered \(response.status)\(code) when \(action)")
        }
    }

    /// The `<Code>` of an S3 error body, if it is a plain word.
    static func errorCode(in response: HTTPClientResponse) -> String? {
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self)
        guard let open = text.range(of: "<Code>"), let close = text.range(of: "</Code>", range: open.upperBound..<text.endIndex) else {
            return nil
        }
        let code = text[open.upperBound..<close.lowerBound]
        guard (1...64).contains(code.count), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }) else {
            return nil
        }
        return String(code)
    }
}
