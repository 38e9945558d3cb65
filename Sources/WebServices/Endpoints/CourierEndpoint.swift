import CloudKitWire
import CloudStore
import Dispatch
import HTTPServer
import Logging
import Synchronization

/// The web courier: `GET /webcourier/1/aps?tok=<apnsToken>&ttl=43200`, the URL `tokens/create`
/// hands out, and `GET /webcourier/1/events?tok=…`, a server-sent-events stream of the same.
///
/// Notifications wait in their push token's queue in CloudStore, written with the change that
/// made them, so they outlive a poll that is not there and a restart. Each poll takes the
/// oldest one; when there is none it waits, without holding a thread, until one is queued or
/// the timeout answers 200 with an empty body (CloudKit JS polls again). A stream takes every
/// one as it comes. An entry is claimed out of the queue before it is given, so that polls for
/// one token in several processes never get the same one, and goes back in its place when the
/// poll or stream it was meant for had ended.
final class CourierEndpoint: Sendable {
    /// Who waits on a token: polls, oldest first, and open streams.
    private enum Waiter: Sendable {
        case poll(PendingResponse)
        case stream(EventStream)

        var channel: NotificationChannel {
            switch self {
            case .poll: .longPoll
            case .stream: .eventStream
            }
        }

        var identity: ObjectIdentifier {
            switch self {
            case .poll(let pending): ObjectIdentifier(pending)
            case .stream(let events): ObjectIdentifier(events)
            }
        }
    }

    private struct Waiting: Sendable {
        var token: PushToken
        var waiters: [Waiter]
    }

    private let store: CloudStore
    private let timeout: Duration
    private let logger = Logger(label: "cumulus.courier")
    private let waiting = Mutex<[String: Waiting]>([:])
    /// Hands notifications out one at a time, so that no entry goes to two waiters.
    private let delivery = DispatchQueue(label: "cumulus.courier")
    /// Tokens whose queues are to be looked at, nil when no look is on its way to `delivery`: a
    /// burst of polls arriving, or a change landing while they wait their turn, is then one
    /// read and one claim rather than one each.
    private let asked = Mutex<Set<String>?>(nil)
    /// Notifications a waiter took, for metrics.
    private let delivered = Atomic<Int>(0)

    init(store: CloudStore, timeout: Duration) {
        self.store = store
        self.timeout = timeout
        store.onNotificationsQueued { [weak self] tokens in self?.wake(tokens) }
        // Another process's notifications may have gone unheard: every waiter reads its queue.
        store.onNotificationsMayHaveBeenMissed { [weak self] in
            guard let self else { return }
            wake(Set(waiting.withLock { Array($0.keys) }))
        }
    }

    /// The courier URL of a push token.
    static func url(base: String, token: String) -> String {
        WebServices.courierPollRoute.link(base: base, [:]) + "?tok=\(PercentEncoding.encodeComponent(token))&ttl=43200"
    }

    /// Answers one poll: the oldest queued notification, or one queued while it waits.
    func poll(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let token = try pushToken(of: request) else { return Self.unknownToken }
        let pending = PendingResponse(timeout: timeout, timeoutResponse: HTTPResponse(status: .ok, bytes: []))
        add(.poll(pending), for: token)
        pending.onCancel { [weak self] in self?.forget(ObjectIdentifier(pending), token: token.token) }
        ask([token.token])
        return .deferred(pending)
    }

    /// Opens a stream of every notification queued for the token, those waiting first.
    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let token = try pushToken(of: request) else { return Self.unknownToken }
        let events = EventStream(heartbeatInterval: .seconds(15))
        add(.stream(events), for: token)
        events.onClose { [weak self] in self?.forget(ObjectIdentifier(events), token: token.token) }
        ask([token.token])
        return .eventStream(events)
    }

    /// How many polls and streams wait on `token`.
    func waitingCount(for token: String) -> Int { waiting.withLock { $0[token]?.waiters.count ?? 0 } }

    /// The polls and streams waiting now, and the notifications handed out so far.
    var metrics: CourierMetrics {
        let (polls, streams) = waiting.withLock { waiting in
            waiting.values.reduce(into: (0, 0)) { counts, entry in
                for waiter in entry.waiters {
                    if case .poll = waiter { counts.0 += 1 } else { counts.1 += 1 }
                }
            }
        }
        return CourierMetrics(pollsWaiting: polls, streamsOpen: streams, delivered: delivered.load(ordering: .relaxed))
    }

    /// Returns once every delivery already asked for has run: a poll's first look at its queue
    /// happens after it starts waiting, so a caller that needs the courier quiet waits for this.
    func settle() { delivery.sync {} }

    /// CloudKit JS 2 hands any JSON a poll answers to the app as a notification, so an unknown or
    /// revoked token gets no JSON at all: an empty 404, after which the client gives up.
    private static let unknownToken = HTTPResponse(status: .notFound, bytes: [])

    private func pushToken(of request: HTTPRequest) throws -> PushToken? {
        guard let value = request.queryParameter("tok") else { return nil }
        return try store.usePushToken(value)
    }

    private func add(_ waiter: Waiter, for token: PushToken) {
        waiting.withLock { waiting in
            waiting[token.token, default: Waiting(token: token, waiters: [])].waiters.append(waiter)
        }
    }

    private func forget(_ identity: ObjectIdentifier, token: String) {
        waiting.withLock { waiting in
            waiting[token]?.waiters.removeAll { $0.identity == identity }
            if waiting[token]?.waiters.isEmpty == true { waiting[token] = nil }
        }
    }

    /// Notifications were queued for `tokens`: those with waiters get them.
    private func wake(_ tokens: Set<String>) {
        let waited = waiting.withLock { waiting in tokens.filter { waiting[$0] != nil } }
        guard !waited.isEmpty else { return }
        ask(waited)
    }

    /// Has `drain` look at the tokens' queues, together with any others asked for before it runs.
    private func ask(_ tokens: some Sequence<String>) {
        let first = asked.withLock { asked in
            guard asked != nil else {
                asked = Set(tokens)
                return true
            }
            asked?.formUnion(tokens)
            return false
        }
        guard first else { return }
        delivery.async { [weak self] in
            guard let self,
                let tokens = asked.withLock({ asked in
                    defer { asked = nil }; return asked
                })
            else { return }
            drain(Array(tokens))
        }
    }

    /// Gives queued notifications to the tokens' waiters, oldest notification to the oldest poll,
    /// until one or the other runs out. At each step one read finds the tokens with something
    /// queued (so that idle polls never write), one write claims each one's oldest entry — for
    /// this process alone, so that a poll for the same token in another process never gets the
    /// same one — and entries whose waiter had gone meanwhile go back in their place. A change
    /// notifying a thousand waiting clients so costs two transactions, not two thousand. Runs on
    /// `delivery` only.
    private func drain(_ tokens: [String]) {
        var tokens = tokens
        while !tokens.isEmpty {
            let heads = waiting.withLock { waiting in
                tokens.compactMap { token in waiting[token].flatMap { entry in entry.waiters.first.map { (entry.token, $0) } } }
            }
            guard !heads.isEmpty else { return }
            let next: [String: NotificationDelivery]
            do {
                let queued = try store.oldestNotifications(for: heads.map(\.0))
                let pending = heads.map(\.0).filter { queued[$0.token] != nil }
                if pending.isEmpty {
                    next = [:]
                } else {
                    // How each is handed out is noted with its claim: what the delivery tracer reports.
                    let channels = Dictionary(heads.map { ($0.0.token, $0.1.channel) }, uniquingKeysWith: { first, _ in first })
                    next = try store.claimNotifications(for: pending, channels: channels)
                }
            } catch {
                logger.error("reading the notification queue failed: \(error)")
                return
            }
            var untaken: [NotificationDelivery] = []
            // One change fires one notification per token of each subscriber: write each once.
            var payloads: [QueuedNotification: [UInt8]] = [:]
            tokens = []
            for (token, waiter) in heads {
                guard let notification = next[token.token] else { continue }
                let payload = payloads[notification.notification] ?? NotificationWire.json(notification.notification).serialized()
                payloads[notification.notification] = payload
                if !give(notification, payload, to: waiter, token: token.token) { untaken.append(notification) }
                // Either way the token may have more for its next waiter.
                tokens.append(token.token)
            }
            guard !untaken.isEmpty else { continue }
            do {
                try store.returnNotifications(untaken)
            } catch {
                logger.error("putting back \(untaken.count) notifications no waiter took failed: \(error)")
                return
            }
        }
    }

    /// Hands one notification to a waiter; whether it took it.
    private func give(_ next: NotificationDelivery, _ payload: [UInt8], to waiter: Waiter, token: String) -> Bool {
        let taken = offer(next, payload, to: waiter, token: token)
        if taken { delivered.wrappingAdd(1, ordering: .relaxed) }
        return taken
    }

    private func offer(_ next: NotificationDelivery, _ payload: [UInt8], to waiter: Waiter, token: String) -> Bool {
        switch waiter {
        case .poll(let pending):
            // A poll answers once: it leaves the line whether it took this one or had ended.
            forget(waiter.identity, token: token)
            return pending.complete(.json(payload))
        case .stream(let events):
            let sent = events.send(
                event: "notification", id: next.notification.notificationID, data: String(decoding: payload, as: UTF8.self))
            if !sent { forget(waiter.identity, token: token) }
            return sent
        }
    }
}
