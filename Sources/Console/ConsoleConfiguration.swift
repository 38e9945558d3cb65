/// How the console's pages are set up; built once at start.
///
/// ```swift
/// var configuration = ConsoleConfiguration(version: "0.1.0")
/// configuration.templatesDirectory = "/srv/cumulus/Templates"
/// configuration.publicURL = "https://cloud.example.com"
/// ```
public struct ConsoleConfiguration: Sendable {
    /// The folder of `.mustache` templates, all loaded at start.
    public var templatesDirectory: String
    /// The URL clients reach this server at, such as `https://cloud.example.com`, used in the links
    /// pages show and in sign-in links; `nil` uses `http://<Host header>` when the header names
    /// the listen address or one of ``allowedHosts``, else the listen address.
    public var publicURL: String?
    /// `Host` values besides the listen address's that links may be built on, in lower case.
    public var allowedHosts: [String] = []
    /// The version shown in the footer of every page.
    public var version: String
    /// The URL path the files of the public directory are served under; pages load their
    /// stylesheet and images from there.
    public var staticPath: String
    /// How long a live tail of the request log may be quiet before a heartbeat, and how often
    /// it checks meanwhile that the session or token it was opened with still holds.
    public var tailHeartbeat: Duration = Self.defaultTailHeartbeat
    /// Every operation the CloudKit API has, as the request log names them: what the log's
    /// operation filter offers. The composition root passes the API's route table's names.
    public var apiOperations: [String] = []

    /// The usual ``tailHeartbeat``.
    public static let defaultTailHeartbeat: Duration = .seconds(15)

    /// Creates a configuration.
    /// - Parameters:
    ///   - templatesDirectory: The folder of `.mustache` templates.
    ///   - publicURL: The URL clients reach this server at; `nil` to derive it from each request.
    ///   - version: The version shown in page footers.
    ///   - staticPath: Where the public directory is served.
    public init(
        templatesDirectory: String = "./Templates", publicURL: String? = nil, version: String, staticPath: String = "/static"
    ) {
        self.templatesDirectory = templatesDirectory
        self.publicURL = publicURL
        self.version = version
        self.staticPath = staticPath
    }
}
