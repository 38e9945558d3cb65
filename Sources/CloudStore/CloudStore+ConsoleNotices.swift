extension CloudStore {
    /// How long a sealed console notice opens, in milliseconds: long enough for the redirect
    /// that carries it to the next page.
    static let consoleNoticeLifetime: Int64 = 60_000

    /// `message` sealed for the console's notice cookie: with an HMAC under a key of its own,
    /// derived from the server secret, and the time it was sealed. Only this server can leave a
    /// notice, so a cookie tossed by a sibling site or altered on the way shows nothing.
    public func sealConsoleNotice(_ message: String) -> String {
        var writer = BinaryWriter()
        writer.signed(configuration.clock())
        writer.string(message)
        return noticeSigner.seal(writer.bytes)
    }

    /// The message of a notice ``sealConsoleNotice(_:)`` sealed in the last minute; `nil` when the
    /// text is malformed, altered, sealed under another key or for another purpose, or old.
    public func openConsoleNotice(_ sealed: String) -> String? {
        guard let payload = noticeSigner.open(sealed) else { return nil }
        var reader = BinaryReader(bytes: payload, damaged: .badRequest("The notice is not valid"))
        guard let sealedAt = try? reader.signed(), let message = try? reader.string(), reader.isAtEnd else { return nil }
        let age = configuration.clock() - sealedAt
        return age >= 0 && age <= Self.consoleNoticeLifetime ? message : nil
    }
}
