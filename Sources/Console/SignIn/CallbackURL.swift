import HTTPServer

/// The Sign In Callback of an API token with the web auth token added, the way CloudKit returns
/// users to an app: `?ckWebAuthToken=<token>` joined to the callback's own query, before any
/// fragment. Works for web URLs and for app schemes such as
/// `cloudkit-icloud.com.example.notes://callback`, whose native clients watch for that scheme.
enum CallbackURL {
    /// `callback` with `ckWebAuthToken` appended to its query, the token percent-encoded
    /// (it contains `+`, `/` and `=`).
    static func appending(webAuthToken: String, to callback: String) -> String {
        var base = Substring(callback)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + "ckWebAuthToken=" + PercentEncoding.encodeComponent(webAuthToken) + fragment
    }
}
