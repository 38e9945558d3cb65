/// A limit the store refuses requests at, as metrics name it.
public enum StoreLimit: String, CaseIterable, Sendable {
    /// An environment's requests per second (THROTTLED).
    case requestRate = "request_rate"
    /// An environment's transfer for the month (QUOTA_EXCEEDED).
    case transfer
    /// An environment's storage for records, or a full database (QUOTA_EXCEEDED).
    case storage
    /// Push tokens requested too often, or too many held by no user.
    case pushTokens = "push_tokens"
    /// Sign-ins refused after too many failures.
    case signIn = "sign_in"
}
