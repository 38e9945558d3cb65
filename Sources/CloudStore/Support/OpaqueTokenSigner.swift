import Crypto

/// Seals the opaque strings clients hold for us (continuation markers, sync tokens) with an
/// HMAC under the server's secret, so that a forged or altered one is refused.
struct OpaqueTokenSigner: Sendable {
    private let key: SymmetricKey
    private static let tagLength = 16

    init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    /// `payload` followed by its truncated HMAC, in URL-safe base64.
    func seal(_ payload: [UInt8]) -> String {
        let tag = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return Base64URL.encode(payload + Array(tag).prefix(Self.tagLength))
    }

    /// The payload of a sealed string, or `nil` when it is malformed or was not sealed by us.
    func open(_ sealed: String) -> [UInt8]? {
        guard let bytes = Base64URL.decode(sealed), bytes.count > Self.tagLength else { return nil }
        let payload = Array(bytes.dropLast(Self.tagLength))
        let tag = Array(bytes.suffix(Self.tagLength))
        let expected = Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)).prefix(Self.tagLength)
        // Compare every byte so the time taken does not reveal where a forgery went wrong.
        var difference: UInt8 = 0
        for (left, right) in zip(tag, expected) { difference |= left ^ right }
        return difference == 0 ? payload : nil
    }
}
