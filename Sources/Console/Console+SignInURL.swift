import HTTPServer

extension Console {
    /// The address of the sign-in page for an app's API token: what the API puts in the
    /// `redirectURL` of an `AUTHENTICATION_REQUIRED` answer, and what apps open in a popup.
    ///
    /// ```swift
    /// Console.signInURL(base: "https://cloud.example.com", apiToken: token, origin: "https://app.example.com")
    /// // https://cloud.example.com/signin?ckAPIToken=<token>&origin=https%3A%2F%2Fapp.example.com
    /// ```
    /// - Parameters:
    ///   - base: The server's URL as clients reach it (see ``ConsoleConfiguration/baseURL(for:)``);
    ///     a trailing slash is ignored.
    ///   - apiToken: The `ckAPIToken` the app called with.
    ///   - origin: The `Origin` of the web page that called, if any: sign-in hands the web auth
    ///     token to that origin only, and only when the API token allows it.
    /// - Returns: The URL, with its parameters percent-encoded.
    public static func signInURL(base: String, apiToken: String, origin: String?) -> String {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        var url = trimmed + "/signin?ckAPIToken=" + PercentEncoding.encodeComponent(apiToken)
        if let origin, !origin.isEmpty {
            url += "&origin=" + PercentEncoding.encodeComponent(origin)
        }
        return url
    }
}
