extension HTTPRequest {
    /// The query's `name=value` pairs in order, percent-decoded (`+` read as a space).
    public var queryItems: [(name: String, value: String)] {
        PercentDecoding.encodedPairs(Substring(query)).map { name, value in
            (PercentDecoding.decode(name, plusAsSpace: true) ?? String(name),
             PercentDecoding.decode(value, plusAsSpace: true) ?? String(value))
        }
    }

    /// The first decoded value of the query parameter `name`, or `nil`.
    public func queryParameter(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every decoded value of the query parameter `name`, in order.
    public func queryParameters(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }
}
