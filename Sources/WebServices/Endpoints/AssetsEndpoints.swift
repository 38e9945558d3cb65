import CloudKitWire
import CloudStore
import HTTPServer

/// Assets: `assets/upload` hands out upload URLs on this server, the client posts the file to
/// one (`POST /assets/1/upload/<ticket>`, no credentials but the URL, from any origin) and gets
/// the `singleFile` dictionary to save in the record; `downloadURL`s
/// (`GET /assets/1/download/<ticket>/<file name>`) serve the content, whole or by range, to the
/// caller they were made for while that caller may read the record; `assets/rereference` hands
/// out an asset a record holds, to save into another.
struct AssetsEndpoints: Sendable {
    let endpoint: APIEndpoint
    let store: CloudStore

    /// `assets/upload`: `{tokens: [{recordName?, recordType, fieldName}], zoneID}` →
    /// `{tokens: [{recordName, fieldName, url}]}`.
    static func upload(_ context: APIContext) throws -> JSONValue {
        var requests: [AssetUploadRequest] = []
        for token in try context.body["tokens"].requiredArray() {
            try token.requireObjectIfPresent()
            requests.append(
                AssetUploadRequest(
                    recordName: try token["recordName"].string(), recordType: try token["recordType"].requiredString(),
                    fieldName: try token["fieldName"].requiredString()))
        }
        let base = context.baseURL
        let tickets = try context.database().assetUploadTickets(requests)
        return .object([
            "tokens": .array(
                tickets.map { ticket in
                    .object([
                        "recordName": .string(ticket.recordName), "fieldName": .string(ticket.fieldName),
                        "url": .string(WebServices.assetUploadRoute.link(base: base, ["ticket": ticket.ticket])),
                    ])
                })
        ])
    }

    /// `assets/rereference`: `{assets: [{recordName, fieldName}], zoneID}` → `{assets: [asset | error]}`.
    static func rereference(_ context: APIContext) throws -> JSONValue {
        var fields: [(recordName: String, fieldName: String)] = []
        for asset in try context.body["assets"].requiredArray() {
            fields.append((try asset["recordName"].requiredString(), try asset["fieldName"].requiredString()))
        }
        let results = try context.database().rereferenceAssets(fields, zoneName: try ZoneWire.zoneName(context.body["zoneID"]))
        return .object([
            "assets": .array(
                zip(fields, results).map { field, result in
                    switch result {
                    case .success(let asset):
                        return FieldValueEncoder.asset(asset)
                    case .failure(let error):
                        return RecordEncoder(numbersAsStrings: false).error(CloudKitError(error), recordName: field.recordName)
                    }
                })
        ])
    }

    /// The file posted to an upload URL → `{singleFile: {fileChecksum, size, receipt}}`, logged
    /// as `operation`.
    func receive(_ request: HTTPRequest, operation: String?) -> HTTPResponse {
        let started = ContinuousClock.now
        let ticket = request.pathParameters["ticket"] ?? ""
        let outcome: APIEndpoint.Outcome
        do {
            let uploaded = try store.uploadAsset(ticket: ticket, content: request.body)
            let body: JSONValue = .object([
                "singleFile": .object([
                    "fileChecksum": .string(uploaded.fileChecksum), "size": .integer(uploaded.size), "receipt": .string(uploaded.receipt),
                ])
            ])
            outcome = APIEndpoint.Outcome(response: .json(body.serialized()))
        } catch {
            outcome = endpoint.failure(error, request: request)
        }
        return logged(outcome, request, operation, ticket: ticket, started: started)
    }

    /// An asset's content for its `downloadURL`, whole or the range asked, logged as `operation`.
    func download(_ request: HTTPRequest, operation: String?) -> HTTPResponse {
        let started = ContinuousClock.now
        let ticket = request.pathParameters["ticket"] ?? ""
        let outcome: APIEndpoint.Outcome
        do {
            outcome = APIEndpoint.Outcome(response: Self.answer(request, with: try store.assetContent(ticket: ticket)))
        } catch {
            outcome = endpoint.failure(error, request: request)
        }
        return logged(outcome, request, operation, ticket: ticket, started: started)
    }

    /// Adds an upload or download to the request log, under the environment its ticket names,
    /// so that its bytes count toward the monthly transfer; a ticket this server did not make
    /// names none, and is not logged; nor is a call of a route without an operation name.
    private func logged(
        _ outcome: APIEndpoint.Outcome, _ request: HTTPRequest, _ operation: String?, ticket: String, started: ContinuousClock.Instant
    ) -> HTTPResponse {
        if let operation, let traffic = store.assetTraffic(ofTicket: ticket) {
            var outcome = outcome
            outcome.user = traffic.user
            endpoint.record(
                outcome, request, operation, started, container: traffic.container.rawValue, environment: traffic.environment.rawValue,
                database: traffic.scope.rawValue)
        }
        return outcome.response
    }

    /// The answer carrying `content`, whole or the range `request` asks.
    private static func answer(_ request: HTTPRequest, with content: AssetContent) -> HTTPResponse {
        let size = Int64(content.bytes.count)
        let etag = "\"\(content.fileChecksum)\""
        var headers = HTTPHeaders()
        // The type sniffed at upload: images inline; anything else only ever as a download,
        // never rendered on this server's origin.
        headers["Content-Type"] = content.contentType
        headers["X-Content-Type-Options"] = "nosniff"
        if !content.isInline { headers["Content-Disposition"] = "attachment" }
        headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
        headers["Accept-Ranges"] = "bytes"
        headers["ETag"] = etag
        // The URL works for the session it was made for only: no cache, not even the browser's,
        // may keep the content past it (NoStoreMiddleware). Ranges and If-Range need no cache.
        var range = ByteRange.resolve(request.headers["Range"], size: size)
        if let ifRange = request.headers["If-Range"], ifRange != etag { range = .whole }
        switch range {
        case .unsatisfiable:
            headers["Content-Range"] = "bytes */\(size)"
            return HTTPResponse(status: .rangeNotSatisfiable, headers: headers, bytes: [])
        case .partial(let lower, let upper):
            headers["Content-Range"] = "bytes \(lower)-\(upper)/\(size)"
            return HTTPResponse(status: .partialContent, headers: headers, bytes: Array(content.bytes[Int(lower)...Int(upper)]))
        case .whole:
            return HTTPResponse(status: .ok, headers: headers, bytes: content.bytes)
        }
    }
}
