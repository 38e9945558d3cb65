import Foundation

extension HTTPResponse {
    /// A response with a JSON body already encoded.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON.
    ///   - status: The status, 200 by default.
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: .bytes(bytes))
    }

    /// The `Content-Type` of a JSON response.
    public static let jsonContentType = "application/json; charset=utf-8"

    // Shared, so building a common response allocates no header storage.
    private static let jsonHeaders: HTTPHeaders = ["Content-Type": jsonContentType]
    private static let textHeaders: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
    private static let htmlHeaders: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]

    /// A response with a JSON body given as a string.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        json(Array(text.utf8), status: status)
    }

    /// A response with `value` encoded by `JSONEncoder`.
    /// - Throws: The encoder's error.
    public static func json<Value: Encodable>(
        encoding value: Value, status: HTTPStatus = .ok, encoder: JSONEncoder = JSONEncoder()
    ) throws -> HTTPResponse {
        json(Array(try encoder.encode(value)), status: status)
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: textHeaders, body: .bytes(Array(text.utf8)))
    }

    /// A `text/html` response.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: htmlHeaders, body: .bytes(Array(html.utf8)))
    }

    /// A redirect to `location` (303 See Other by default, right after a form post).
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Location": location])
    }

    /// 204 No Content.
    public static var noContent: HTTPResponse { HTTPResponse(status: .noContent) }

    /// A response completed later through `pending` (long-poll); no thread is held meanwhile.
    public static func deferred(_ pending: PendingResponse) -> HTTPResponse {
        HTTPResponse(status: .ok, body: .pending(pending))
    }

    /// A `text/event-stream` response fed by `stream`.
    public static func eventStream(_ stream: EventStream) -> HTTPResponse {
        HTTPResponse(
            status: .ok,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            body: .eventStream(stream)
        )
    }

    /// A chunked response fed by `stream`.
    public static func stream(_ stream: ResponseStream, status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: .stream(stream))
    }

    /// A JSON error body `{"error":"<reason>","status":<code>}` with the given status.
    public static func error(_ status: HTTPStatus, message: String? = nil) -> HTTPResponse {
        var text = "{\"status\":\(status.code),\"error\":"
        text += JSONString.quote(message ?? status.reasonPhrase)
        text += "}"
        return json(Array(text.utf8), status: status)
    }

    /// The number of bytes in a `.bytes` body, or the region length of a `.file` body.
    var knownBodyLength: Int? {
        switch body {
        case .empty: 0
        case .bytes(let bytes): bytes.count
        case .file(let region): Int(region.length)
        default: nil
        }
    }
}

/// Quotes strings for hand-written JSON.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included.
    /// - Parameter alsoEscaping: scalars written as `\uXXXX` although JSON allows them as they
    ///   are (for JSON placed where they would mean something else, such as inside `<script>`).
    public static func quote(_ text: String, alsoEscaping: Set<Unicode.Scalar> = []) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || alsoEscaping.contains(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
