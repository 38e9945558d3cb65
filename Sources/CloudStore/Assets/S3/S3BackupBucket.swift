import Foundation

/// Backups kept as objects of an S3-compatible bucket, reached with the asset store's client
/// and signer: written whole, listed under a prefix, read back and deleted.
struct S3BackupBucket {
    private let store: S3AssetStore

    init(_ configuration: S3AssetConfiguration) { store = S3AssetStore(configuration) }

    /// Writes the file at `path` as the object `key`.
    func upload(_ path: String, as key: String) throws {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw CloudStoreError.internalError("Cannot read \(path)") }
        let response = try store.send("PUT", key: key, body: Array(bytes))
        guard response.status == 200 else { throw failure(response, "writing the backup \(key)") }
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

    /// The object `key`'s bytes.
    func read(_ key: String) throws -> [UInt8] {
        let response = try store.send("GET", key: key)
        guard response.status == 200 else {
            throw response.status == 404
                ? CloudStoreError.notFound("There is no backup \(key)") : failure(response, "reading the backup \(key)")
        }
        return response.body
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

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
