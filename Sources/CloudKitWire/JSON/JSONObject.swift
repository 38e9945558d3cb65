/// A JSON object that keeps its keys in order.
///
/// Keys stay in the order they were parsed or inserted, so a response is written in the order
/// it was built and a request can be echoed as it came. Lookup by key is a linear scan for the
/// small objects CloudKit traffic is made of and a hash lookup once an object holds more than
/// ``linearSearchLimit`` keys, so large or hostile objects stay fast.
///
/// Keys are unique. When a key is set twice (a duplicate key in parsed text, a repeated key in
/// a literal, an assignment) the last value wins and the key keeps the position of its first
/// occurrence, as JavaScript's `JSON.parse` does.
///
/// ```swift
/// var zone: JSONObject = ["zoneName": "_defaultZone"]
/// zone["ownerRecordName"] = "_abc"
/// zone.keys   // ["zoneName", "ownerRecordName"]
/// ```
public struct JSONObject: Sendable {
    /// Objects up to this many keys are searched linearly; larger ones carry a hash index.
    public static let linearSearchLimit = 12

    /// The keys, in order.
    public private(set) var keys: [String]
    /// The values, in the order of ``keys``.
    public private(set) var values: [JSONValue]
    /// Position of each key, present only when `keys.count > linearSearchLimit`.
    private var positions: [String: Int]?

    /// Creates an empty object.
    public init() {
        keys = []
        values = []
        positions = nil
    }

    /// Creates an object from key–value pairs in order; a repeated key keeps its first position
    /// and takes its last value.
    /// - Parameter pairs: The entries in order.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in pairs {
            self[key] = value
        }
    }

    /// Creates an object from parallel arrays, resolving duplicate keys as documented on the type.
    /// The common case, no duplicates, keeps both arrays as they are.
    init(keys: [String], values: [JSONValue]) {
        precondition(keys.count == values.count)
        switch Self.check(keys) {
        case .unique(let positions):
            self.init(keys: keys, values: values, positions: positions)
        case .duplicated:
            self.init(zip(keys, values))
        }
    }

    /// Creates an object from parallel arrays whose keys the caller made unique (the encoders
    /// of this module, writing a record's keys): nothing to check, so nothing is paid for it.
    init(uniqueKeys keys: [String], values: [JSONValue]) {
        assert(Set(keys).count == keys.count, "duplicate keys")
        self.init(
            keys: keys, values: values,
            positions: keys.count > Self.linearSearchLimit ? Dictionary(uniqueKeysWithValues: zip(keys, keys.indices)) : nil)
    }

    private init(keys: [String], values: [JSONValue], positions: [String: Int]?) {
        self.keys = keys
        self.values = values
        self.positions = positions
    }

    private enum KeyCheck {
        /// No key repeats; `positions` is the index such an object needs, if any.
        case unique(positions: [String: Int]?)
        case duplicated
    }

    private static func check(_ keys: [String]) -> KeyCheck {
        if keys.count <= linearSearchLimit {
            return containsDuplicate(keys) ? .duplicated : .unique(positions: nil)
        }
        var positions = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() where positions.updateValue(position, forKey: key) != nil {
            return .duplicated
        }
        return .unique(positions: positions)
    }

    private static func containsDuplicate(_ keys: [String]) -> Bool {
        var position = 1
        while position < keys.count {
            let key = keys[position]
            var earlier = 0
            while earlier < position {
                if keys[earlier] == key { return true }
                earlier += 1
            }
            position += 1
        }
        return false
    }

    /// The position of `key` in ``keys``, or `nil` when the object does not hold it.
    /// - Parameter key: The key to look for.
    /// - Returns: The position of the key.
    public func position(ofKey key: String) -> Int? {
        if let positions {
            return positions[key]
        }
        return keys.firstIndex(of: key)
    }

    /// The value for `key`, or `nil` when the object does not hold it. Setting a value replaces
    /// it in place or appends the key; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(ofKey: key) else { return nil }
            return values[position]
        }
        set {
            if let newValue {
                if let position = position(ofKey: key) {
                    values[position] = newValue
                } else {
                    append(key, newValue)
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Removes `key` and its value, keeping the order of the others.
    /// - Parameter key: The key to remove.
    /// - Returns: The removed value, or `nil` when the object did not hold the key.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(ofKey: key) else { return nil }
        keys.remove(at: position)
        let removed = values.remove(at: position)
        rebuildPositions()
        return removed
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
        if positions != nil {
            positions![key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            rebuildPositions()
        }
    }

    private mutating func rebuildPositions() {
        guard keys.count > Self.linearSearchLimit else {
            positions = nil
            return
        }
        var positions = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() {
            positions[key] = position
        }
        self.positions = positions
    }
}

// MARK: - Collection

extension JSONObject: RandomAccessCollection {
    /// An entry of the object.
    public typealias Element = (key: String, value: JSONValue)

    /// Zero.
    public var startIndex: Int { 0 }
    /// The number of entries.
    public var endIndex: Int { keys.count }

    /// The entry at `position`, in key order.
    public subscript(position: Int) -> Element {
        (keys[position], values[position])
    }
}

// MARK: - Equality

extension JSONObject: Hashable {
    /// Objects are equal when they hold the same keys in the same order with equal values.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }

    /// Hashes keys and values in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

// MARK: - Literals

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a literal, keys in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
