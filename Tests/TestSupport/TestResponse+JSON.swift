import CloudKitWire

extension TestResponse {
    /// The body as JSON.
    public func json() throws -> JSONValue { try JSONValue.parse(body) }
}
