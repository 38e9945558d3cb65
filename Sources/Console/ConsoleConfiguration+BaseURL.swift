import HTTPServer

extension ConsoleConfiguration {
    /// The URL clients reach this server at, without a trailing slash: ``publicURL`` when set,
    /// else `http://` and the request's `Host` header when it is a plain host (see
    /// `HTTPRequest.baseURL(publicURL:)`). A `Host` that is not is never trusted into links: the
    /// result is then empty, which leaves links relative to the current page.
    /// - Parameter request: The request being answered.
    /// - Returns: For example `https://cloud.example.com` or `http://127.0.0.1:8080`.
    public func baseURL(for request: HTTPRequest) -> String {
        request.baseURL(publicURL: publicURL) ?? ""
    }
}
