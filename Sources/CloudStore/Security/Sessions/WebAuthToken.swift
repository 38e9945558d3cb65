/// The web auth tokens of signed-in users, in CloudKit's shape (`1__32__<base64>`, over 100
/// characters of `[A-Za-z0-9+/=_]`): a session id, the time the token was issued and a nonce,
/// sealed with an HMAC under the server's secret. Nothing about a token is stored, so a new
/// one can be issued on every response without writing; the session it names can be revoked.
struct WebAuthToken: Hashable, Sendable {
    /// The session the token belongs to (16 random bytes, hex).
    var sessionID: String
    /// When the token was issued, in milliseconds since 1970.
    var issued: Int64

    private static let prefix = "1__32__"
    private static let format: UInt8 = 1

    /// The key web auth tokens are sealed with: derived from the server secret, so that no other
    /// sealed value can pass as a token; prepared once, as every signed-in request uses it twice.
    static func key(from secret: [UInt8]) -> PreparedMAC {
        PreparedMAC(key: OpaqueTokenSigner.derivedKey(secret: secret, label: "cumulus web auth tokens"))
    }

    /// The token's text.
    func encoded(with key: PreparedMAC) -> String {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(105)
        writer.byte(Self.format)
        writer.blob(SecureToken.bytes(fromHex: sessionID) ?? [])
        writer.signed(issued)
        // 17 bytes of nonce make the sealed token 73 bytes, so its base64 always ends in `=`:
        // clients must percent-encode it either way, and a token that always needs it shows
        // a client that does not at once.
        writer.bytes += SecureToken.randomBytes(17)
        writer.bytes += key.code(writer.bytes)
        return Self.prefix + Base64.encode(writer.bytes, .standard)
    }

    /// Opens a token; `nil` when it is malformed or was not sealed with `key`.
    static func decode(_ text: String, with key: PreparedMAC) -> WebAuthToken? {
        guard text.hasPrefix(prefix), let bytes = Base64.decode(text.dropFirst(prefix.count), .standard), bytes.count > 32 else {
            return nil
        }
        let payload = Array(bytes.dropLast(32))
        guard SecureToken.constantTimeEquals(Array(bytes.suffix(32)), key.code(payload)) else {
            return nil
        }
        var reader = BinaryReader(bytes: payload, damaged: .authenticationFailed("The web auth token is not valid"))
        guard (try? reader.byte()) == format, let session = try? reader.blob(), let issued = try? reader.signed() else { return nil }
        return WebAuthToken(sessionID: SecureToken.hexString(session), issued: issued)
    }
}
