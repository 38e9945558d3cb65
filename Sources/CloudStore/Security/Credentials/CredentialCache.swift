/// API tokens, server keys and sessions as last read from the catalog, kept while the catalog's
/// change counter stays the same: a request then authenticates without reading SQLite, yet a
/// token or key added, or a session revoked, by any process is seen on the next request.
final class CredentialCache: Sendable {
    private struct State {
        var counter: Int64 = .min
        var apiTokens: [String: APIToken] = [:]
        var serverKeys: [String: ServerKey] = [:]
        var sessions: [String: (session: WebSession, lastSeen: Int64)] = [:]

        var count: Int { apiTokens.count + serverKeys.count + sessions.count }
    }

    /// Past this many entries the cache starts over, so that it cannot grow without bound.
    private static let capacity = 10_000
    private let state = ReadWriteLock(State())

    /// The cached value for `key`, if the cache is current at `counter`.
    func apiToken(_ key: String, at counter: Int64) -> APIToken? { current(counter) { $0.apiTokens[key] } }
    func serverKey(_ key: String, at counter: Int64) -> ServerKey? { current(counter) { $0.serverKeys[key] } }
    func session(_ key: String, at counter: Int64) -> (session: WebSession, lastSeen: Int64)? { current(counter) { $0.sessions[key] } }

    /// Remembers values read at `counter`.
    func remember(_ token: APIToken, at counter: Int64) { store(counter) { $0.apiTokens[token.token] = token } }
    func remember(_ key: ServerKey, at counter: Int64) { store(counter) { $0.serverKeys[key.keyID] = key } }
    func remember(_ session: (session: WebSession, lastSeen: Int64), at counter: Int64) {
        store(counter) { $0.sessions[session.session.id] = session }
    }

    private func current<T>(_ counter: Int64, _ read: (State) -> T?) -> T? {
        state.read { state in
            guard state.counter == counter else { return nil }
            return read(state)
        }
    }

    private func store(_ counter: Int64, _ write: (inout State) -> Void) {
        state.write { state in
            if state.counter != counter || state.count >= Self.capacity { state = State(counter: counter) }
            write(&state)
        }
    }
}
