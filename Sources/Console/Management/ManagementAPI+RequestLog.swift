import CloudStore
import HTTPServer

extension ManagementAPI {
    /// A container's request log: read, one call looked up (by its `id` or its request id),
    /// exported and followed live.
    static let requestLogRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/logs", "requestLog", needs: .reads(.logs)) { actions, input, actor in
            try actions.requestLog(try requestLogFilter(input, actions), as: actor).json
        },
        .response(.get, "/containers/:container/logs/export", "exportRequestLog", needs: .reads(.logs), body: .raw) { api, input, actor in
            let format = input.query("format") ?? "jsonl"
            guard format == "jsonl" || format == "csv" else {
                throw CloudStoreError.badRequest("Unknown export format '\(format)': use jsonl or csv")
            }
            let export = try api.actions.exportRequestLog(try requestLogFilter(input, api.actions), csv: format == "csv", as: actor)
            return file(export.bytes, contentType: export.contentType)
        },
        .json(.get, "/containers/:container/logs/requests/:request", "requestLogEntry", needs: .reads(.logs)) { actions, input, actor in
            let environment = try input.query("environment").flatMap { $0.isEmpty ? nil : try Environment(parsing: $0) }
            return try actions.requestLogEntry(
                container: input.path("container"), environment: environment, request: input.path("request"), as: actor
            ).json
        },
        .response(.get, "/containers/:container/logs/tail", "tailRequestLog", needs: .reads(.logs), body: .raw) { api, input, _ in
            RequestLogTail.response(
                api.actions.store.requestLog, filter: try requestLogFilter(input, api.actions), heartbeat: api.tailHeartbeat
            ) {
                api.authenticator.stillAuthenticates(input.request)
            }
        },
    ]

    /// The entries a request log route asks for, from its container and query.
    private static func requestLogFilter(_ input: ManagementInput, _ actions: ManagementActions) throws -> RequestLogFilter {
        try actions.requestLogFilter(
            container: input.request.pathParameters["container"] ?? "",
            parameters: Dictionary(input.request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }
}
