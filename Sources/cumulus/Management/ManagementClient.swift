import CloudKitWire
import Console
import Foundation
import HTTPServer

/// The management API (`/admin/v1/…`) as the commands call it: answered in this process on a
/// data directory, or by a remote server. Either way the same routes run the same actions, so a
/// command behaves alike on a laptop against a server in Docker and on the server itself.
struct ManagementClient {
    /// Where requests go.
    enum Transport {
        /// The management API of a store opened in this process, acting as the local operator.
        case local(InProcessResponder)
        /// A server's management API at `base` (`https://cloud.example.com`), with a management token.
        case remote(base: URL, token: String)
    }

    let transport: Transport

    /// An answer: its status and body.
    struct Answer {
        var status: Int
        var body: [UInt8]
    }

    /// Sends a JSON request and answers the JSON of a successful response.
    /// - Throws: ``ManagementFailure`` with the server's reason for an error response.
    func json(_ method: HTTPMethod, _ path: ManagementPath, body: JSONValue? = nil) throws -> JSONValue {
        let answer = try send(method, path, body: body?.serialized() ?? [], contentType: "application/json")
        return try Self.parse(answer.body, from: path)
    }

    /// Sends a JSON request and answers its action's typed result, read from the JSON of a successful response.
    /// - Throws: ``ManagementFailure`` with the server's reason for an error response, ``MalformedAnswer``
    ///   for an answer of another shape.
    func result<Result: ManagementResult>(
        _ type: Result.Type, _ method: HTTPMethod, _ path: ManagementPath, body: JSONValue? = nil
    ) throws -> Result {
        try Result(json: try json(method, path, body: body))
    }

    /// Sends a text body (a `.ckdb` schema) and answers the JSON of a successful response.
    func json(_ method: HTTPMethod, _ path: ManagementPath, text: String) throws -> JSONValue {
        let answer = try send(method, path, body: Array(text.utf8), contentType: "text/plain; charset=utf-8")
        return try Self.parse(answer.body, from: path)
    }

    /// Sends a file's bytes as the body and answers the JSON of a successful response.
    func json(_ method: HTTPMethod, _ path: ManagementPath, bytes: [UInt8]) throws -> JSONValue {
        try Self.parse(try send(method, path, body: bytes, contentType: "application/octet-stream").body, from: path)
    }

    /// Sends a request (with a JSON body, if given) and answers the text of a successful response.
    func text(_ method: HTTPMethod, _ path: ManagementPath, body: JSONValue? = nil) throws -> String {
        String(
            decoding: try send(method, path, body: body?.serialized() ?? [], contentType: body == nil ? nil : "application/json").body,
            as: UTF8.self)
    }

    /// Sends a request without a body and answers the bytes of a successful response (a file
    /// sent from the disk included).
    func bytes(_ method: HTTPMethod, _ path: ManagementPath) throws -> [UInt8] {
        try send(method, path, body: [], contentType: nil).body
    }

    private func send(_ method: HTTPMethod, _ path: ManagementPath, body: [UInt8], contentType: String?) throws -> Answer {
        let answer: Answer
        switch transport {
        case .local(let responder):
            var headers = HTTPHeaders()
            if let contentType { headers.add(name: "Content-Type", value: contentType) }
            let response = responder.respond(to: HTTPRequest(method: method, target: path.target, headers: headers, body: body))
            switch response.body {
            case .bytes(let bytes): answer = Answer(status: Int(response.status.code), body: bytes)
            case .file(let region): answer = Answer(status: Int(response.status.code), body: try Self.read(region))
            default: answer = Answer(status: Int(response.status.code), body: [])
            }
        case .remote(let base, let token):
            answer = try RemoteManagement.send(
                method.rawValue, base: base, target: path.target, token: token, body: body, contentType: contentType)
        }
        guard (200..<300).contains(answer.status) else { throw ManagementFailure(answer) }
        return answer
    }

    /// The bytes of a file region a local response sends.
    private static func read(_ region: FileRegion) throws -> [UInt8] {
        let handle = FileHandle(fileDescriptor: region.file.descriptor, closeOnDealloc: false)
        try handle.seek(toOffset: UInt64(region.offset))
        return Array(try handle.read(upToCount: Int(region.length)) ?? Data())
    }

    private static func parse(_ body: [UInt8], from path: ManagementPath) throws -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw ManagementFailure(description: "The server's answer to \(path.target) is not JSON; is this a Cumulus server?")
        }
    }
}

/// A management route's path and query, each part percent-encoded:
/// `ManagementPath("containers", id, "tokens")` is `/admin/v1/containers/<id>/tokens`.
struct ManagementPath {
    /// The request target: path and query.
    let target: String

    /// The path of the segments under `/admin/v1/`, with an optional query.
    init(_ segments: String..., query: [(String, String)] = []) {
        self.init(segments: segments, query: query)
    }

    /// The path of the segments under `/admin/v1/`, with the query parameters that have a value.
    init(segments: [String], query: [(String, String?)]) {
        let encode = PercentEncoding.encodeComponent
        var target = "/admin/v1/" + segments.map(encode).joined(separator: "/")
        let given = query.compactMap { name, value in value.map { (name, $0) } }
        if !given.isEmpty { target += "?" + given.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&") }
        self.target = target
    }
}

/// A management request the server refused, with its reason.
struct ManagementFailure: Error, CustomStringConvertible, LocalizedError {
    let description: String

    init(description: String) { self.description = description }

    /// The reason of CloudKit's error JSON (`{"serverErrorCode", "reason"}`), else the status.
    init(_ answer: ManagementClient.Answer) {
        let error = try? JSONValue.parse(answer.body)
        if let reason = error?["reason"]?.stringValue, !reason.isEmpty {
            description = reason
        } else {
            description = "The server answered HTTP \(answer.status)"
        }
    }

    var errorDescription: String? { description }
}
