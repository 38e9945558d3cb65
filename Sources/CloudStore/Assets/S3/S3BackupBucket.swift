import Foundation

/// Backups kept as objects of an S3-compatible bucket, reached with the asset store's client
/// and signer: written (in parts when large), listed under a prefix, read back a range at a
/// time, and deleted.
struct S3BackupBucket {
    private let store: S3AssetStore

    init(_ configuration: S3AssetConfiguration) { store = S3AssetStore(configuration) }

    /// How much of a backup one request carries: a part of a multipart upload, a range of a
    /// download. Never more than this is held in memory, whatever the backup's size (S3 takes
    /// parts of 5 MiB and more, but the last).
    static let partBytes = 16 << 20

    /// Writes the file at `path` as the object `key`: in one request when it fits in one part,
    /// else as a multipart upload of parts read one at a time, aborted when any part fails (the
    /// bucket keeps nothing of it).
    func upload(_ path: String, as key: String, partBytes: Int = partBytes) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CloudStoreError.internalError("Cannot read \(path)") }
        defer { try? file.close() }
        let first = Array(try file.read(upToCount: partBytes) ?? Data())
        guard first.count == partBytes else {
            let response = try store.send("PUT", key: key, body: first)
            guard response.status == 200 else { throw failure(response, "writing the backup \(key)") }
            return
        }
        let started = try store.send("POST", key: key, query: [("uploads", "")])
        guard started.status == 200, let uploadID = Self.elements("UploadId", in: String(decoding: started.body, as: UTF8.self)).first
        else { throw failure(started, "starting the upload of the backup \(key)") }
        do {
            var tags: [String] = []
            var part = first
            while !part.isEmpty {
                let query = [("partNumber", String(tags.count + 1)), ("uploadId", uploadID)]
                let response = try store.send("PUT", key: key, query: query, body: part)
                guard response.status == 200, let tag = response.header("ETag") else {
                    throw failure(response, "writing part \(tags.count + 1) of the backup \(key)")
                }
                tags.append(tag)
                part = Array(try file.read(upToCount: partBytes) ?? Data())
            }
            let parts = tags.enumerated().map {
                "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(Self.escaped($0.element))</ETag></Part>"
            }
            let body = Array(("<CompleteMultipartUpload>" + parts.joined() + "</CompleteMultipartUpload>").utf8)
            let completed = try store.send("POST", key: key, query: [("uploadId", uploadID)], body: body)
            // A completion can fail after its 200 began: the error is then in the body.
            guard completed.status == 200, S3AssetStore.errorCode(in: completed) == nil else {
                throw failure(completed, "completing the upload of the backup \(key)")
            }
        } catch {
            _ = try? store.send("DELETE", key: key, query: [("uploadId", uploadID)])
            throw error
        }
    }

    /// The objects whose keys begin with `prefix`, with their sizes.
    func list(prefix: String) throws -> [(key: String, bytes: Int64)] {
        var found: [(key: String, bytes: Int64)] = []
        var continuation: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            let response = try store.send("GET", key: nil, query: query)
            guard response.status == 200 else { throw failure(response, "listing the backups under \(prefix)") }
            let text = String(decoding: response.body, as: UTF8.self)
            for object in Self.elements("Contents", in: text) {
                guard let key = Self.elements("Key", in: object).first,
                    let size = Self.elements("Size", in: object).first.flatMap({ Int64($0) })
                else { continue }
                found.append((Self.unescaped(key), size))
            }
            continuation =
                Self.elements("IsTruncated", in: text).first == "true" ? Self.elements("NextContinuationToken", in: text).first : nil
        } while continuation != nil
        return found
    }

    /// Writes the object `key` to a new file at `path` (private), a range at a time.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such object.
    func download(_ key: String, to path: String, partBytes: Int = partBytes) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let file = FileHandle(forWritingAtPath: path)
        else { throw CloudStoreError.internalError("Cannot write \(path)") }
        defer { try? file.close() }
        var offset = 0
        while true {
            let response = try store.send("GET", key: key, headers: [("Range", "bytes=\(offset)-\(offset + partBytes - 1)")])
            switch response.status {
            case 200:
                // The whole object, when the bucket ignores ranges.
                guard offset == 0 else { throw failure(response, "reading the backup \(key)") }
                try file.write(contentsOf: response.body)
                return
            case 206:
                try file.write(contentsOf: response.body)
                offset += response.body.count
                let total = response.header("Content-Range")?.split(separator: "/").last.flatMap { Int($0) }
                if response.body.isEmpty || offset >= (total ?? offset) { return }
            case 416 where offset == 0:
                return  // An empty object.
            case 404:
                throw CloudStoreError.notFound("There is no backup \(key)")
            default:
                throw failure(response, "reading the backup \(key)")
            }
        }
    }

    /// The object `key`'s last `count` bytes (all of it when shorter).
    func tail(_ key: String, count: Int) throws -> Data {
        let response = try store.send("GET", key: key, headers: [("Range", "bytes=-\(count)")])
        guard response.status == 206 || response.status == 200 else { throw failure(response, "reading the end of the backup \(key)") }
        return Data(response.body.suffix(count))
    }

    /// Deletes the object `key`.
    func delete(_ key: String) throws {
        let response = try store.send("DELETE", key: key)
        guard [200, 204, 404].contains(response.status) else { throw failure(response, "deleting the backup \(key)") }
    }

    private func failure(_ response: HTTPClientResponse, _ action: String) -> CloudStoreError {
        let code = S3AssetStore.errorCode(in: response).map { " \($0)" } ?? ""
        return .internalError("The backup bucket answered \(response.status)\(code) when \(action)")
    }

    /// The texts of every `<name>…</name>` element of `xml`, in order.
    private static func elements(_ name: String, in xml: String) -> [String] {
        var found: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
