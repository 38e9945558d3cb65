extension HTTPRequest {
    /// The query's `name=value` pairs in order, percent-decoded (`+` read as a space).
    public var queryItems: [(name: String, value: String)] {
        guard !query.isEmpty else { return [] }
        var items: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            items.append((
                PercentDecoding.decode(name, plusAsSpace: true) ?? String(name),
                PercentDecoding.decode(value, plusAsSpace: true) ?? String(value)
            ))
        }
        return items
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
