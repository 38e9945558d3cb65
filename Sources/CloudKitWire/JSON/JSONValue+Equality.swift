// MARK: - Equality

extension JSONValue {
    /// Structural equality, as documented on the type; written text equals the value it holds.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.serialized(let left), .serialized(let right)): left.bytes == right.bytes || left.value == right.value
        case (.serialized(let left), _): left.value == rhs
        case (_, .serialized(let right)): lhs == right.value
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.double(let left), .double(let right)): left == right
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): left == right
        default: false
        }
    }

    /// Hashes the value; written text hashes as the value it holds, so equal values hash alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let flag): hasher.combine(1); hasher.combine(flag)
        case .integer(let integer): hasher.combine(2); hasher.combine(integer)
        case .double(let double): hasher.combine(3); hasher.combine(double)
        case .string(let string): hasher.combine(4); hasher.combine(string)
        case .array(let elements): hasher.combine(5); hasher.combine(elements)
        case .object(let object): hasher.combine(6); hasher.combine(object)
        case .serialized(let text): text.value.hash(into: &hasher)
        }
    }
}
