/// Why a server-to-server signed request was refused.
///
/// Every case answers the client with CloudKit's `AUTHENTICATION_FAILED` (HTTP 401); the
/// cases exist so logs and the console can say which part of the signature was wrong.
public enum ServerToServerAuthError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A signing header is absent or empty; carries the header's name.
    case missingHeader(String)
    /// No server-to-server key with this key ID is registered for the container and environment.
    case unknownKeyID(String)
    /// The date header is not an ISO 8601 UTC date such as `2016-01-25T22:15:43Z`.
    case malformedDate
    /// The request was signed too long ago or too far in the future. `skewSeconds` is the
    /// signed date minus the server's clock (negative: in the past); `allowedSeconds` is the
    /// window on either side.
    case dateOutsideWindow(skewSeconds: Int, allowedSeconds: Int)
    /// The signature header is not base64 of a DER or raw 64-byte ECDSA signature.
    case malformedSignature
    /// The signature does not verify for this key, body, date and path.
    case badSignature
    /// A public key offered for registration is not an EC P-256 public key; says why.
    case unsupportedKey(String)

    /// A sentence saying what was wrong, for logs and the console.
    public var description: String {
        switch self {
        case .missingHeader(let name):
            return "Missing header \(name)"
        case .unknownKeyID(let keyID):
            return "No server-to-server key with ID '\(keyID)' is registered for this container and environment"
        case .malformedDate:
            return "\(ServerToServerHeader.date) is not an ISO 8601 UTC date such as 2016-01-25T22:15:43Z"
        case .dateOutsideWindow(let skew, let allowed):
            let direction = skew < 0 ? "\(-skew) seconds in the past" : "\(skew) seconds in the future"
            return "The request date is \(direction); signed requests must be dated within \(allowed) seconds of the server's clock"
        case .malformedSignature:
            return "\(ServerToServerHeader.signature) is not base64 of an ECDSA P-256 signature (DER or raw r‖s)"
        case .badSignature:
            return "The signature does not match the key, date, body and path of the request"
        case .unsupportedKey(let reason):
            return "Unsupported key: \(reason)"
        }
    }
}
