extension HTTPRequest {
    /// The query's `name=value` pairs in order, percent-decoded (`+` read as a space).
    public var queryItems: [(name: String, value: String)] {
        PercentDecoding.encodedPairs(Substring(query)).map { name, value in
            (
                PercentDecoding.decode(name, plusAsSpace: true) ?? String(name),
                PercentDecoding.decode(value, plusAsSpace: true) ?? String(value)
            )
        }
    }

    /// The first decoded value of the query parameter `name`, or `nil`. Only that value is decoded.
    public func queryParameter(_ name: String) -> String? {
        var query = query
        return query.withUTF8 { bytes in
            var found: Range<Int>?
            PercentDecoding.forEachNamedPair(in: bytes) { encodedName, value in
                guard PercentDecoding.encodedName(encodedName, in: bytes, is: name) else { return true }
                found = value
                return false
            }
            return found.map { PercentDecoding.decodedValue(bytes, $0) }
        }
    }

    /// The first decoded value of the query parameter `name`, else of `other`, or `nil`: for a
    /// parameter that goes by two names, in one pass over the query.
    public func queryParameter(_ name: String, orElse other: String) -> String? {
        var query = query
        return query.withUTF8 { bytes in
            var first: Range<Int>?, second: Range<Int>?
            PercentDecoding.forEachNamedPair(in: bytes) { encodedName, value in
                if PercentDecoding.encodedName(encodedName, in: bytes, is: name) {
                    first = value
                    return false
                }
                if second == nil, PercentDecoding.encodedName(encodedName, in: bytes, is: other) { second = value }
                return true
            }
            return (first ?? second).map { PercentDecoding.decodedValue(bytes, $0) }
        }
    }

    /// Every decoded value of the query parameter `name`, in order.
    public func queryParameters(_ name: String) -> [String] {
        var query = query
        return query.withUTF8 { bytes in
            var found: [String] = []
            PercentDecoding.forEachNamedPair(in: bytes) { encodedName, value in
                if PercentDecoding.encodedName(encodedName, in: bytes, is: name) {
                    found.append(PercentDecoding.decodedValue(bytes, value))
                }
                return true
            }
            return found
        }
    }
}
