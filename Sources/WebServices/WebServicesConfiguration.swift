import CloudStore
import Logging

/// How the CloudKit Web Services API is served.
public struct WebServicesConfiguration: Sendable {
    /// Where failures the API answers INTERNAL_ERROR for are logged, with their cause and request id.
    public var logger = Logger(label: "cumulus.api")
    /// The largest request body the JSON API accepts; larger ones get 413 in CloudKit's error JSON.
    public var maxRequestBytes = 4 * 1024 * 1024
    /// The server's base URL as clients reach it (`https://cloud.example.com`), for the URLs the
    /// API hands out (sign-in, web courier, assets); `nil` uses the request's `Host` when it names
    /// the listen address or one of ``allowedHosts``, else the listen address.
    public var publicURL: String?
    /// `Host` values besides the listen address's that links may be built on, in lower case.
    public var allowedHosts: [String] = []
    /// How far a server-to-server request's date may be from now (CloudKit clients assume 10 minutes).
    public var clockSkew: Duration
    /// How long a web-courier long poll waits for a notification before answering empty.
    public var courierTimeout: Duration
    /// The sign-in page's URL for a base URL, an API token and the calling page's origin; the
    /// `redirectURL` of AUTHENTICATION_REQUIRED answers.
    public var signInURL: @Sendable (_ base: String, _ apiToken: String, _ origin: String?) -> String
    /// Which requests keep their allowed access decisions in the request log, besides the
    /// refusals every request keeps (`--trace-sample`).
    public var traceSampler = RequestTraceSampler()

    /// Creates a configuration.
    public init(
        publicURL: String? = nil, clockSkew: Duration = .seconds(600), courierTimeout: Duration = .seconds(30),
        signInURL: @escaping @Sendable (_ base: String, _ apiToken: String, _ origin: String?) -> String
    ) {
        self.publicURL = publicURL
        self.clockSkew = clockSkew
        self.courierTimeout = courierTimeout
        self.signInURL = signInURL
    }
}
