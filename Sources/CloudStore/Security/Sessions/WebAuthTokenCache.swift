/// Web auth tokens this process opened or issued recently, so that a signed-in request does not
/// pay for two HMACs, base64 both ways and a random nonce: a token opened once opens again from
/// here, and the token handed back with every answer is reused for a second per session.
///
/// Sound because a token's text alone decides what it opens to (the key is fixed for the store's
/// lifetime), and opening a token only names a session: whether that session is still valid is
/// checked on every request, after the cache. Bounded: a full table is emptied, not grown.
final class WebAuthTokenCache: Sendable {
    private struct State {
        var opened: [String: WebAuthToken] = [:]
        var issued: [String: (text: String, token: WebAuthToken)] = [:]
    }

    /// Read by every signed-in request, written about once a second per session.
    private let state = ReadWriteLock(State())
    private let key: PreparedMAC
    /// The most tokens each table keeps.
    static let capacity = 4_096
    /// How long a token handed back is handed back again, in milliseconds: its `issued` time
    /// extends the session's idle lifetime, so reusing it costs that second at most.
    static let reuse: Int64 = 1_000

    init(key: PreparedMAC) { self.key = key }

    /// Opens a token; `nil` when it is malformed or was not sealed with the store's key
    /// (refusals are not kept: they cannot fill the table).
    func open(_ text: String) -> WebAuthToken? {
        if let known = state.read({ $0.opened[text] }) { return known }
        guard let token = WebAuthToken.decode(text, with: key) else { return nil }
        state.write { Self.keep(token, as: text, in: &$0.opened) }
        return token
    }

    /// A token for `sessionID` issued at most `reuse` before `now`: the last one handed out, or
    /// a new one.
    func token(for sessionID: String, now: Int64) -> String {
        if let last = state.read({ $0.issued[sessionID] }), last.token.issued <= now, now - last.token.issued < Self.reuse {
            return last.text
        }
        let token = WebAuthToken(sessionID: sessionID, issued: now)
        let text = token.encoded(with: key)
        state.write { state in
            Self.keep((text, token), as: sessionID, in: &state.issued)
            // The client sends it back next: it opens from here.
            Self.keep(token, as: text, in: &state.opened)
        }
        return text
    }

    private static func keep<Value>(_ value: Value, as key: String, in table: inout [String: Value]) {
        if table.count >= capacity { table.removeAll(keepingCapacity: true) }
        table[key] = value
    }
}
