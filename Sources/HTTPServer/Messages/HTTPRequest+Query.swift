extension HTTPRequest {
    /// The query's `name=value` pairs in order, percent-decoded (`+` read as a space).
    public var queryItems: [(name: String, value: String)] {
        PercentDecoding.encodedPairs(Substring(query)).map { name, value in
            (PercentDecoding.decode(name, plusAsSpace: true) ?? String(name),
             PercentDecoding.decode(value, plusAsSpace: true) ?? String(value))
        }
    }

    /// The first decoded value of the query parameter `name`, or `nil`. Only that value is decoded.
    public func queryParameter(_ name: String) -> String? {
        var found: String?
        PercentDecoding.forEachEncodedPair(Substring(query)) { encodedName, value in
            guard PercentDecoding.encodedName(encodedName, is: name) else { return true }
            found = PercentDecoding.decode(value, plusAsSpace: true) ?? String(value)
            return false
        }
        return found
    }

    /// The first decoded value of the query parameter `name`, else of `other`, or `nil`: for a
    /// parameter that goes by two names, in one pass over the query.
    public func queryParameter(_ name: String, orElse other: String) -> String? {
        var first: Substring?, second: Substring?
        PercentDecoding.forEachEncodedPair(Substring(query)) { encodedName, value in
            if PercentDecoding.encodedName(encodedName, is: name) {
                first = value
                return false
            }
            if second == nil, PercentDecoding.encodedName(encodedName, is: other) { second = value }
            return true
        }
        guard let value = first ?? second else { return nil }
        return PercentDecoding.decode(value, plusAsSpace: true) ?? String(value)
    }

    /// Every decoded value of the query parameter `name`, in order.
    public func queryParameters(_ name: String) -> [String] {
        var found: [String] = []
        PercentDecoding.forEachEncodedPair(Substring(query)) { encodedName, value in
            if PercentDecoding.encodedName(encodedName, is: name) {
                found.append(PercentDecoding.decode(value, plusAsSpace: true) ?? String(value))
            }
            return true
        }
        return found
    }
}
