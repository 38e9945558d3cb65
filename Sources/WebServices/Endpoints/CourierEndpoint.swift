import CloudKitWire
import CloudStore
import HTTPServer
import Synchronization

/// The web courier: `GET /webcourier/1/aps?tok=<apnsToken>&ttl=43200`, the URL `tokens/create`
/// hands out. Each poll waits, without holding a thread, for one notification for its token and
/// answers it as JSON; when none comes before the timeout it answers 200 with an empty body, and
/// the client polls again (CloudKit JS re-polls after 10 ms).
final class CourierEndpoint: Sendable {
    private let store: CloudStore
    private let timeout: Duration
    /// Polls waiting per push token, oldest first.
    private let waiting = Mutex<[String: [PendingResponse]]>([:])

    init(store: CloudStore, timeout: Duration) {
        self.store = store
        self.timeout = timeout
    }

    /// The courier URL of a push token.
    static func url(base: String, token: String) -> String {
        "\(base)/webcourier/1/aps?tok=\(PercentEncoding.encodeComponent(token))&ttl=43200"
    }

    /// Answers one poll.
    func poll(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let token = request.queryParameter("tok"), try store.pushToken(token) != nil else {
            let error = CloudKitError(WebServicesError.badRequest("Unknown or missing courier token"))
            return .json(error.body(uuid: request.requestID).serialized(), status: error.httpStatus)
        }
        let pending = PendingResponse(timeout: timeout, timeoutResponse: HTTPResponse(status: .ok, bytes: []))
        waiting.withLock { $0[token, default: []].append(pending) }
        pending.onCancel { [weak self] in self?.forget(pending, token: token) }
        return .deferred(pending)
    }

    /// Hands `payload` (a notification's JSON) to the oldest poll waiting on `token`.
    /// - Returns: whether a poll was waiting to take it.
    @discardableResult
    func deliver(_ payload: JSONValue, to token: String) -> Bool {
        while let next = waiting.withLock({ polls -> PendingResponse? in
            guard var queue = polls[token], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            polls[token] = queue.isEmpty ? nil : queue
            return first
        }) {
            if next.complete(.json(payload.serialized())) { return true }
        }
        return false
    }

    /// How many polls are waiting on `token`.
    func waitingCount(for token: String) -> Int { waiting.withLock { $0[token]?.count ?? 0 } }

    private func forget(_ pending: PendingResponse, token: String) {
        waiting.withLock { polls in
            polls[token]?.removeAll { $0 === pending }
            if polls[token]?.isEmpty == true { polls[token] = nil }
        }
    }
}
