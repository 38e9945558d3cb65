import Foundation

/// Decides whether a response body is worth gzip for a request, and compresses it.
enum ResponseCompression {
    /// Compresses a `.bytes` body in place when the client accepts gzip, the body is at least
    /// `minimumBytes`, its type compresses well, and compression actually saves bytes.
    static func apply(to response: inout HTTPResponse, acceptEncoding: String?, minimumBytes: Int, level: Int32) {
        guard case .bytes(let bytes) = response.body, bytes.count >= minimumBytes,
            !response.status.forbidsBody, response.status != .partialContent,
            response.headers["Content-Encoding"] == nil,
            isCompressible(response.headers["Content-Type"])
        else { return }
        addVary(&response.headers)
        guard let acceptEncoding, acceptsGzip(acceptEncoding),
            let compressed = Gzip.compress(bytes, level: level), compressed.count < bytes.count
        else { return }
        response.body = .bytes(compressed)
        response.headers["Content-Encoding"] = "gzip"
        if let etag = response.headers["ETag"], etag.hasSuffix("\"") {
            // A different representation needs a different entity tag.
            response.headers["ETag"] = String(etag.dropLast()) + "-gzip\""
        }
    }

    /// Whether `Accept-Encoding` allows gzip (a `gzip` or `*` element without `q=0`).
    static func acceptsGzip(_ header: String) -> Bool {
        var star = false
        for element in header.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let coding = parts.first?.trimmingHTTPWhitespace() else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let text = parameter.trimmingHTTPWhitespace().lowercased().replacingOccurrences(of: " ", with: "")
                return text == "q=0" || text == "q=0.0" || text == "q=0.00" || text == "q=0.000"
            }
            if HTTPHeaders.namesEqual(coding, "gzip") || HTTPHeaders.namesEqual(coding, "x-gzip") { return !refused }
            if coding == "*" { star = !refused }
        }
        return star
    }

    /// Text, JSON, JavaScript, XML and SVG compress well; images, archives and media do not.
    static func isCompressible(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";").first.map { $0.trimmingHTTPWhitespace().lowercased() } ?? ""
        if type.hasPrefix("text/") { return true }
        switch type {
        case "application/json", "application/javascript", "application/xml", "image/svg+xml",
            "application/manifest+json", "application/wasm", "application/x-ndjson":
            return true
        default:
            return type.hasSuffix("+json") || type.hasSuffix("+xml")
        }
    }

    private static func addVary(_ headers: inout HTTPHeaders) {
        if let vary = headers["Vary"] {
            if !headers.containsToken("Accept-Encoding", in: "Vary") && vary != "*" {
                headers["Vary"] = vary + ", Accept-Encoding"
            }
        } else {
            headers["Vary"] = "Accept-Encoding"
        }
    }
}
