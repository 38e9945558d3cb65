/// An HTTP response status: a three-digit code and its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The status code, e.g. 404.
    public let code: Int
    /// The reason phrase sent on the status line, e.g. "Not Found".
    public let reasonPhrase: String

    /// Creates a status; the reason phrase defaults to the standard one for known codes.
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? HTTPStatus.standardReason(for: code)
    }

    public var description: String { "\(code) \(reasonPhrase)" }

    /// Whether responses with this status never carry a body (1xx, 204, 304).
    public var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }

    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// 100 Continue
    public static let `continue` = HTTPStatus(code: 100)
    /// 200 OK
    public static let ok = HTTPStatus(code: 200)
    /// 201 Created
    public static let created = HTTPStatus(code: 201)
    /// 202 Accepted
    public static let accepted = HTTPStatus(code: 202)
    /// 204 No Content
    public static let noContent = HTTPStatus(code: 204)
    /// 206 Partial Content
    public static let partialContent = HTTPStatus(code: 206)
    /// 301 Moved Permanently
    public static let movedPermanently = HTTPStatus(code: 301)
    /// 302 Found
    public static let found = HTTPStatus(code: 302)
    /// 303 See Other
    public static let seeOther = HTTPStatus(code: 303)
    /// 304 Not Modified
    public static let notModified = HTTPStatus(code: 304)
    /// 307 Temporary Redirect
    public static let temporaryRedirect = HTTPStatus(code: 307)
    /// 308 Permanent Redirect
    public static let permanentRedirect = HTTPStatus(code: 308)
    /// 400 Bad Request
    public static let badRequest = HTTPStatus(code: 400)
    /// 401 Unauthorized
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403 Forbidden
    public static let forbidden = HTTPStatus(code: 403)
    /// 404 Not Found
    public static let notFound = HTTPStatus(code: 404)
    /// 405 Method Not Allowed
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 408 Request Timeout
    public static let requestTimeout = HTTPStatus(code: 408)
    /// 409 Conflict
    public static let conflict = HTTPStatus(code: 409)
    /// 411 Length Required
    public static let lengthRequired = HTTPStatus(code: 411)
    /// 412 Precondition Failed
    public static let preconditionFailed = HTTPStatus(code: 412)
    /// 413 Content Too Large
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 414 URI Too Long
    public static let uriTooLong = HTTPStatus(code: 414)
    /// 415 Unsupported Media Type
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    /// 416 Range Not Satisfiable
    public static let rangeNotSatisfiable = HTTPStatus(code: 416)
    /// 417 Expectation Failed
    public static let expectationFailed = HTTPStatus(code: 417)
    /// 421 Misdirected Request
    public static let misdirectedRequest = HTTPStatus(code: 421)
    /// 422 Unprocessable Content
    public static let unprocessableContent = HTTPStatus(code: 422)
    /// 429 Too Many Requests
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 431 Request Header Fields Too Large
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    /// 500 Internal Server Error
    public static let internalServerError = HTTPStatus(code: 500)
    /// 501 Not Implemented
    public static let notImplemented = HTTPStatus(code: 501)
    /// 503 Service Unavailable
    public static let serviceUnavailable = HTTPStatus(code: 503)
    /// 505 HTTP Version Not Supported
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    /// The standard reason phrase for a code (RFC 9110 §15), or "Unknown".
    public static func standardReason(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        default: "Unknown"
        }
    }
}
