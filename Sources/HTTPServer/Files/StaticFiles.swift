import Glibc
import Synchronization

/// Serves the files under a root folder: content types, `ETag`/`If-None-Match` and
/// `Last-Modified`/`If-Modified-Since` (304), `Cache-Control`, single byte ranges (206/416) and
/// gzip for text files. No request can reach outside the root: `..`, `.` and hidden segments,
/// encoded slashes and backslashes, NUL and symbolic links that lead out are all answered 404.
///
/// ```swift
/// let files = StaticFiles(root: "Public")
/// router.get("/static/*path", files.handler)
/// ```
public struct StaticFiles: Sendable {
    /// The root folder, resolved to its real path (nil if it does not exist).
    public let root: String?
    /// The `Cache-Control` value sent with every file.
    public var cacheControl: String
    /// The route's catch-all parameter holding the file path.
    public var parameterName: String
    /// The file served for a folder, if any.
    public var indexFile: String?
    /// Files up to this size are gzip-compressed (once, then cached) for clients that accept it.
    public var gzipMaximumBytes: Int64 = 1 << 20
    /// Files smaller than this are sent as they are.
    public var gzipMinimumBytes: Int64 = 1024
    private let gzipCache = GzipCache()

    /// Creates a file server.
    /// - Parameters:
    ///   - root: The folder to serve.
    ///   - cacheControl: The `Cache-Control` value; `no-cache` makes browsers revalidate (cheap with 304s).
    ///   - parameterName: The name of the route's `*name` segment.
    ///   - indexFile: The file served for a folder.
    public init(root: String, cacheControl: String = "no-cache", parameterName: String = "path", indexFile: String? = "index.html") {
        self.root = StaticFiles.realPath(root)
        self.cacheControl = cacheControl
        self.parameterName = parameterName
        self.indexFile = indexFile
    }

    /// The handler to register on a `GET` route ending in `*<parameterName>`.
    public var handler: HTTPHandler {
        let files = self
        return { request in files.respond(to: request) }
    }

    /// Answers a `GET` or `HEAD` for a file.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let root, let relative = safeRelativePath(request) else { return .error(.notFound) }
        guard var path = StaticFiles.realPath(relative.isEmpty ? root : root + "/" + relative),
            path == root || path.hasPrefix(root + "/")
        else { return .error(.notFound) }
        guard var file = OpenFile(path: path) else { return .error(.notFound) }
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { return .error(.notFound) }
        if info.st_mode & S_IFMT == S_IFDIR {
            guard let indexFile, let index = StaticFiles.realPath(path + "/" + indexFile), index.hasPrefix(root + "/"),
                let opened = OpenFile(path: index), fstat(opened.descriptor, &info) == 0
            else { return .error(.notFound) }
            path = index
            file = opened
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .error(.notFound) }

        let size = Int64(info.st_size)
        let modified = Int(info.st_mtim.tv_sec)
        let etag = "\"\(String(size, radix: 16))-\(String(modified, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\""
        var headers: HTTPHeaders = [
            "Content-Type": MediaTypes.contentType(forPath: path),
            "ETag": etag,
            "Last-Modified": HTTPDate.format(modified),
            "Cache-Control": cacheControl,
            "Accept-Ranges": "bytes",
        ]

        if isNotModified(request, etag: etag, modified: modified) {
            headers["Content-Type"] = nil
            headers["Accept-Ranges"] = nil
            return HTTPResponse(status: .notModified, headers: headers)
        }

        var range = ByteRange.resolve(request.headers["Range"], size: size)
        if let ifRange = request.headers["If-Range"], ifRange.trimmingHTTPWhitespace() != etag[...] {
            range = .whole
        }
        switch range {
        case .unsatisfiable:
            var response = HTTPResponse.error(.rangeNotSatisfiable)
            response.headers["Content-Range"] = "bytes */\(size)"
            return response
        case .partial(let lower, let upper):
            headers["Content-Range"] = "bytes \(lower)-\(upper)/\(size)"
            return HTTPResponse(
                status: .partialContent, headers: headers, body: .file(FileRegion(file: file, offset: lower, length: upper - lower + 1)))
        case .whole:
            if let compressed = gzipped(file: file, path: path, size: size, etag: etag, request: request, headers: &headers) {
                return HTTPResponse(status: .ok, headers: headers, body: .bytes(compressed))
            }
            return HTTPResponse(status: .ok, headers: headers, body: .file(FileRegion(file: file, offset: 0, length: size)))
        }
    }

    // MARK: - Paths

    /// The path below the root from the route parameter; nil if any segment could escape it.
    private func safeRelativePath(_ request: HTTPRequest) -> String? {
        let raw = request.rawPath.lowercased()
        // Encoded separators and NUL never name a file; refusing them here means that decoded
        // segments below can be trusted to be single path components.
        if raw.contains("%2f") || raw.contains("%5c") || raw.contains("%00") || raw.contains("\\") { return nil }
        let relative = request.pathParameters[parameterName] ?? ""
        if relative.isEmpty { return "" }
        var segments: [Substring] = []
        for segment in relative.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { continue }
            if segment.hasPrefix(".") || segment.contains("\0") || segment.contains("\\") { return nil }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let length = strlen(resolved)
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: length), as: UTF8.self)
    }

    // MARK: - Conditional requests

    private func isNotModified(_ request: HTTPRequest, etag: String, modified: Int) -> Bool {
        if request.headers.contains("If-None-Match") {
            for tag in request.headers.listValues(for: "If-None-Match") {
                if tag == "*" { return true }
                let bare = tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
                if bare == etag[...] || bare == (etag.dropLast() + "-gzip\"")[...] { return true }
            }
            return false
        }
        if let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return modified <= since
        }
        return false
    }

    // MARK: - Compression

    private func gzipped(file: OpenFile, path: String, size: Int64, etag: String, request: HTTPRequest, headers: inout HTTPHeaders)
        -> [UInt8]?
    {
        guard size >= gzipMinimumBytes, size <= gzipMaximumBytes,
            ResponseCompression.isCompressible(headers["Content-Type"])
        else { return nil }
        headers["Vary"] = "Accept-Encoding"
        guard let accept = request.headers["Accept-Encoding"], ResponseCompression.acceptsGzip(accept) else { return nil }
        let compressed: [UInt8]
        if let cached = gzipCache.get(path + etag) {
            compressed = cached
        } else {
            var bytes = [UInt8](repeating: 0, count: Int(size))
            let read = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, Int(size), 0) }
            guard read == Int(size), let result = Gzip.compress(bytes, level: 6), result.count < bytes.count else { return nil }
            gzipCache.put(path + etag, result)
            compressed = result
        }
        headers["Content-Encoding"] = "gzip"
        headers["ETag"] = String(etag.dropLast()) + "-gzip\""
        return compressed
    }
}

/// Gzip output of static files by entity tag, bounded in total size.
final class GzipCache: Sendable {
    private let entries = Mutex<(map: [String: [UInt8]], bytes: Int)>(([:], 0))
    private let limit = 32 * 1024 * 1024

    func get(_ key: String) -> [UInt8]? { entries.withLock { $0.map[key] } }

    func put(_ key: String, _ value: [UInt8]) {
        entries.withLock { entries in
            if entries.bytes + value.count > limit {
                entries = ([:], 0)
            }
            entries.map[key] = value
            entries.bytes += value.count
        }
    }
}
