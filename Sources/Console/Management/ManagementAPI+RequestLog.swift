import CloudStore
import HTTPServer

extension ManagementAPI {
    /// A container's request log: read, exported and followed live.
    static let requestLogRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/logs", "requestLog") { actions, input, actor in
            try actions.requestLog(try requestLogFilter(input, actions), as: actor).json
        },
        .response(.get, "/containers/:container/logs/export", "exportRequestLog", body: .raw) { api, input, actor in
            let format = input.query("format") ?? "jsonl"
            guard format == "jsonl" || format == "csv" else {
                throw CloudStoreError.badRequest("Unknown export format '\(format)': use jsonl or csv")
            }
            let export = try api.actions.exportRequestLog(try requestLogFilter(input, api.actions), csv: format == "csv", as: actor)
            return file(export.bytes, contentType: export.contentType)
        },
        .response(.get, "/containers/:container/logs/tail", "tailRequestLog", body: .raw) { api, input, _ in
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
