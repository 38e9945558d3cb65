/// The parts of an HTTP request that a server-to-server signature covers.
///
/// Made by the API layer from the request (``extract(header:body:requestTarget:)``), then
/// checked by ``ServerToServerSignatureVerifier``. Pure data: no HTTP types, so it is easy to
/// build in tests.
public struct SignedRequestParts: Hashable, Sendable {
    /// `X-Apple-CloudKit-Request-KeyID`: which registered key signed the request.
    public var keyID: String
    /// `X-Apple-CloudKit-Request-ISO8601Date`, exactly as sent.
    public var dateHeader: String
    /// `X-Apple-CloudKit-Request-SignatureV1`, exactly as sent (base64).
    public var signatureHeader: String
    /// The request body bytes, exactly as received; empty when there is none.
    public var body: [UInt8]
    /// The request target as sent on the request line: path and query, such as
    /// `/database/1/iCloud.com.example/development/public/records/query?ckjsVersion=1`.
    public var requestTarget: String

    /// Creates the parts from values already at hand.
    /// - Parameters:
    ///   - keyID: The key ID header's value.
    ///   - dateHeader: The date header's value.
    ///   - signatureHeader: The signature header's value.
    ///   - body: The body bytes.
    ///   - requestTarget: The request target (path and query) as sent.
    public init(keyID: String, dateHeader: String, signatureHeader: String, body: [UInt8], requestTarget: String) {
        self.keyID = keyID
        self.dateHeader = dateHeader
        self.signatureHeader = signatureHeader
        self.body = body
        self.requestTarget = requestTarget
    }

    /// Collects the signing headers of a request.
    ///
    /// ```swift
    /// guard let parts = try SignedRequestParts.extract(
    ///     header: { request.headers[$0] }, body: request.body, requestTarget: request.target
    /// ) else { /* not a server-to-server request: try API token auth */ }
    /// ```
    /// - Parameters:
    ///   - header: Looks up a header value by name; the caller matches names case-insensitively.
    ///   - body: The body bytes.
    ///   - requestTarget: The request target (path and query) as sent.
    /// - Returns: The parts, or `nil` when the request carries none of the three signing headers,
    ///   so it is not a server-to-server request at all.
    /// - Throws: ``ServerToServerAuthError/missingHeader(_:)`` naming the first signing header
    ///   that is absent or empty when at least one of them is present.
    public static func extract(
        header: (String) -> String?,
        body: [UInt8],
        requestTarget: String
    ) throws(ServerToServerAuthError) -> SignedRequestParts? {
        func value(_ name: String) -> String? {
            guard let raw = header(name) else { return nil }
            let trimmed = raw.trimmingWhitespace()
            return trimmed.isEmpty ? nil : trimmed
        }
        let keyID = value(ServerToServerHeader.keyID)
        let date = value(ServerToServerHeader.date)
        let signature = value(ServerToServerHeader.signature)
        if keyID == nil, date == nil, signature == nil {
            return nil
        }
        guard let keyID else { throw .missingHeader(ServerToServerHeader.keyID) }
        guard let date else { throw .missingHeader(ServerToServerHeader.date) }
        guard let signature else { throw .missingHeader(ServerToServerHeader.signature) }
        return SignedRequestParts(
            keyID: keyID, dateHeader: date, signatureHeader: signature, body: body, requestTarget: requestTarget)
    }

    /// The subpaths a client may have signed, most likely first: the request target in origin
    /// form (path and query, as CloudKit JS and requests-cloudkit sign it), then the bare path
    /// (as MistKit, OpenCloudKit and most gists sign it) when there is a query.
    ///
    /// A target in absolute form (`https://host/path?query`) is reduced to its origin form first.
    public var signedSubpathCandidates: [String] {
        var target = Substring(requestTarget)
        if !target.hasPrefix("/"), let scheme = target.firstRange(of: "://") {
            let afterScheme = target[scheme.upperBound...]
            target = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        guard let query = target.firstIndex(of: "?") else { return [String(target)] }
        return [String(target), String(target[..<query])]
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingWhitespace() -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
