import HTTPServer

extension ConsoleConfiguration {
    /// The URL clients reach this server at, without a trailing slash: ``publicURL`` when set,
    /// else `http://` and the request's `Host` when it names the listen address or one of
    /// ``allowedHosts``, else the listen address (see `HTTPRequest.baseURL(publicURL:allowedHosts:)`).
    /// Empty, leaving links relative to the current page, for a request made in process.
    /// - Parameter request: The request being answered.
    /// - Returns: For example `https://cloud.example.com` or `http://127.0.0.1:8080`.
    public func baseURL(for request: HTTPRequest) -> String {
        request.baseURL(publicURL: publicURL, allowedHosts: allowedHosts) ?? ""
    }
}
