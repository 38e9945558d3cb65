/// An ordered list of header fields with case-insensitive lookup.
///
/// Names keep the case they were sent or added with; lookups ignore ASCII case. A name may
/// appear several times (`Set-Cookie`, or a list split over lines).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Equatable {
        /// The field name as sent or added.
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    @usableFromInline var fields: [Field]

    /// Creates an empty header list.
    public init() { fields = [] }

    /// Creates an empty list with room for `capacity` fields.
    public init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Creates a header list from fields in order.
    public init(_ fields: [Field]) { self.fields = fields }

    /// Creates a header list from `name: value` pairs in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, or `nil`; setting replaces every field of that name
    /// (setting `nil` removes them).
    public subscript(name: String) -> String? {
        get {
            for field in fields where HTTPHeaders.namesEqual(field.name, name) { return field.value }
            return nil
        }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// The first value for `name`, else the first for `other` (a field with two spellings),
    /// found in one pass over the fields.
    public func value(_ name: String, orElse other: String) -> String? {
        var otherValue: String?
        for field in fields {
            if HTTPHeaders.namesEqual(field.name, name) { return field.value }
            if otherValue == nil, HTTPHeaders.namesEqual(field.name, other) { otherValue = field.value }
        }
        return otherValue
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { HTTPHeaders.namesEqual($0.name, name) ? $0.value : nil }
    }

    /// Every comma-separated element of every value for `name`, trimmed, in order
    /// (for list-valued fields such as `Connection` or `Accept-Encoding`).
    public func listValues(for name: String) -> [Substring] {
        var result: [Substring] = []
        for field in fields where HTTPHeaders.namesEqual(field.name, name) {
            for part in field.value.split(separator: ",", omittingEmptySubsequences: true) {
                let trimmed = part.trimmingHTTPWhitespace()
                if !trimmed.isEmpty { result.append(trimmed) }
            }
        }
        return result
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPHeaders.namesEqual($0.name, name) }
    }

    /// Whether the list-valued field `name` holds `token` (ASCII case-insensitive).
    public func containsToken(_ token: String, in name: String) -> Bool {
        listValues(for: name).contains { HTTPHeaders.namesEqual($0, token) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field holding `value`.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let index = fields.firstIndex(where: { HTTPHeaders.namesEqual($0.name, name) }) {
            fields[index].value = value
            var next = index + 1
            while next < fields.count {
                if HTTPHeaders.namesEqual(fields[next].name, name) { fields.remove(at: next) } else { next += 1 }
            }
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { HTTPHeaders.namesEqual($0.name, name) }
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// ASCII case-insensitive comparison of two header names or tokens.
    @inlinable
    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        // Names are short: compared on their contiguous bytes, not through the generic views.
        var a = a, b = b
        guard a.utf8.count == b.utf8.count else { return false }
        return a.withUTF8 { lhs in
            b.withUTF8 { rhs in
                for index in 0..<lhs.count where lhs[index] != rhs[index] {
                    let x = lhs[index] | 0x20
                    guard x == rhs[index] | 0x20, x >= 0x61, x <= 0x7A else { return false }
                }
                return true
            }
        }
    }

    /// Whether two field names (or tokens) are equal ignoring ASCII case.
    @inlinable
    public static func namesEqual<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        let lhs = a.utf8, rhs = b.utf8
        guard lhs.count == rhs.count else { return false }
        for (x, y) in zip(lhs, rhs) where x != y {
            guard x | 0x20 == y | 0x20, (x | 0x20) >= 0x61, (x | 0x20) <= 0x7A else { return false }
        }
        return true
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return Substring(slice)
    }
}
