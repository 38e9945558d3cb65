import Crypto

/// Seals the opaque strings clients hold for us (continuation markers, sync tokens, console
/// notices) with an HMAC, so that a forged or altered one is refused. Each purpose has its own
/// key derived from the server's secret, so a value sealed for one purpose never opens as another.
struct OpaqueTokenSigner: Sendable {
    /// What a signer seals: each purpose gets a key of its own.
    enum Purpose: String, Sendable {
        case continuationMarker = "continuation markers"
        case syncToken = "sync tokens"
        case assets = "asset tickets"
        case consoleNotices = "console notices"
    }

    private let mac: PreparedMAC
    private static let tagLength = 16

    /// A signer for `purpose`, with a key derived from `secret` by HKDF-SHA256.
    init(secret: [UInt8], purpose: Purpose) {
        mac = PreparedMAC(key: Self.derivedKey(secret: secret, label: "cumulus " + purpose.rawValue))
    }

    /// A key for one use of the server secret: HKDF-SHA256 with the use's label as info.
    static func derivedKey(secret: [UInt8], label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), info: Array(label.utf8), outputByteCount: 32)
    }

    /// `payload` followed by its truncated HMAC, in URL-safe base64.
    func seal(_ payload: [UInt8]) -> String {
        return Base64URL.encode(payload + mac.code(payload).prefix(Self.tagLength))
    }

    /// The payload of a sealed string, or `nil` when it is malformed or was not sealed by us.
    func open(_ sealed: String) -> [UInt8]? {
        guard let bytes = Base64URL.decode(sealed), bytes.count > Self.tagLength else { return nil }
        let payload = Array(bytes.dropLast(Self.tagLength))
        let tag = Array(bytes.suffix(Self.tagLength))
        let expected = mac.code(payload).prefix(Self.tagLength)
        // Compare every byte so the time taken does not reveal where a forgery went wrong.
        var difference: UInt8 = 0
        for (left, right) in zip(tag, expected) { difference |= left ^ right }
        return difference == 0 ? payload : nil
    }
}
