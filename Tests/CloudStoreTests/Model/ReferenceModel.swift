@testable import CloudStore

/// A plain in-memory implementation of the record, change-tag and query rules, written
/// independently of the store, to compare the store against.
struct ReferenceModel {
    struct Entry: Equatable {
        var type: String
        var fields: [String: FieldValue]
        var tag: String
        /// Creation order across the whole environment, as storage keys are.
        var key: Int64
    }

    /// Records by zone, then name.
    var zones: [String: [String: Entry]] = ["_defaultZone": [:]]
    var nextKey: Int64 = 1

    /// A comparable summary of one operation's outcome.
    enum Outcome: Equatable, CustomStringConvertible {
        case saved(name: String, tag: String, fields: [String: FieldValue])
        case deleted(String)
        case failed(String)

        /// The outcome with a save's change tag as the model states it.
        var withNewTag: Outcome {
            guard case .saved(let name, _, let fields) = self else { return self }
            return .saved(name: name, tag: ReferenceModel.newTag, fields: fields)
        }

        var description: String {
            switch self {
            case .saved(let name, let tag, let fields): "saved(\(name), \(tag), \(fields.keys.sorted()))"
            case .deleted(let name): "deleted(\(name))"
            case .failed(let code): "failed(\(code))"
            }
        }
    }

    /// Applies a batch to `zone` with the store's rules for batches without references or schema changes.
    mutating func modify(_ operations: [RecordOperation], zone: String, atomic: Bool) -> [Outcome] {
        let saved = self
        var outcomes: [Outcome] = []
        for operation in operations {
            let outcome = apply(operation, zone: zone)
            outcomes.append(outcome)
            if case .failed = outcome, atomic && zone != "_defaultZone" {
                self = saved
                return outcomes.enumerated().map { index, outcome in
                    index == outcomes.count - 1 ? outcome : .failed("ATOMIC_ERROR")
                } + Array(repeating: .failed("ATOMIC_ERROR"), count: operations.count - outcomes.count)
            }
        }
        return outcomes
    }

    /// What the model says of a save's change tag: that it is new. Tags are opaque, so the
    /// comparison checks that the store's is one never given before, then the model takes it.
    static let newTag = "<new>"

    private mutating func nextTag(_ zone: String) -> String { Self.newTag }

    /// Takes the store's change tags for the records `outcomes` saved in `zone`.
    mutating func adoptTags(_ outcomes: [Outcome], zone: String) {
        for case .saved(let name, let tag, _) in outcomes { zones[zone]?[name]?.tag = tag }
    }

    private mutating func apply(_ operation: RecordOperation, zone: String) -> Outcome {
        guard let name = operation.recordName else { return .failed("BAD_REQUEST") }
        let existing = zones[zone]?[name]
        switch operation.kind {
        case .create:
            if existing != nil { return .failed("CONFLICT") }
            return insert(name, operation, zone: zone)
        case .update, .replace, .delete:
            guard let existing else { return .failed("NOT_FOUND") }
            guard let tag = operation.recordChangeTag else { return .failed("BAD_REQUEST") }
            guard tag == existing.tag else { return .failed("CONFLICT") }
            if operation.kind == .delete { return remove(name, zone: zone) }
            return change(name, existing, operation, zone: zone)
        case .forceUpdate, .forceReplace:
            if let existing { return change(name, existing, operation, zone: zone) }
            return insert(name, operation, zone: zone)
        case .forceDelete:
            guard existing != nil else { return .failed("NOT_FOUND") }
            return remove(name, zone: zone)
        }
    }

    private mutating func insert(_ name: String, _ operation: RecordOperation, zone: String) -> Outcome {
        guard let type = operation.recordType else { return .failed("BAD_REQUEST") }
        let tag = nextTag(zone)
        zones[zone, default: [:]][name] = Entry(type: type, fields: operation.fields, tag: tag, key: nextKey)
        nextKey += 1
        return .saved(name: name, tag: tag, fields: operation.fields)
    }

    private mutating func change(_ name: String, _ existing: Entry, _ operation: RecordOperation, zone: String) -> Outcome {
        if let type = operation.recordType, type != existing.type { return .failed("BAD_REQUEST") }
        var fields = operation.kind.replacesFields ? operation.fields : existing.fields.merging(operation.fields) { $1 }
        if !operation.kind.replacesFields { for cleared in operation.clearedFields { fields[cleared] = nil } }
        let tag = nextTag(zone)
        zones[zone]![name] = Entry(type: existing.type, fields: fields, tag: tag, key: existing.key)
        return .saved(name: name, tag: tag, fields: fields)
    }

    private mutating func remove(_ name: String, zone: String) -> Outcome {
        _ = nextTag(zone)
        zones[zone]![name] = nil
        return .deleted(name)
    }

    // MARK: - Queries

    /// The names a query returns, in order.
    func query(_ query: Query, zone: String) -> [String] {
        let matching = (zones[zone] ?? [:]).filter { _, entry in
            entry.type == query.recordType && query.filters.allSatisfy { Self.matches(entry, $0) }
        }
        let tieAscending = query.sorts.last?.ascending ?? true
        return matching.sorted { left, right in
            for sort in query.sorts {
                let a = Self.sortValue(left.value, sort), b = Self.sortValue(right.value, sort)
                if a == b { continue }
                return sort.ascending ? Self.precedes(a, b) : Self.precedes(b, a)
            }
            return tieAscending ? left.value.key < right.value.key : left.value.key > right.value.key
        }.map(\.key)
    }

    /// A sort key: `nil` for a missing value, which sorts first.
    private static func sortValue(_ entry: Entry, _ sort: QuerySort) -> FieldValue? {
        guard case .field(let name) = sort.field else { return nil }
        return entry.fields[name]
    }

    private static func precedes(_ a: FieldValue?, _ b: FieldValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let a?, let b?): return compare(a, b) < 0
        }
    }

    /// Orders scalars as SQLite does: numbers numerically, strings by UTF-8 bytes.
    static func compare(_ a: FieldValue, _ b: FieldValue) -> Int {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) ? -1 : (x == y ? 0 : 1)
        default:
            let x = number(a), y = number(b)
            return x < y ? -1 : (x == y ? 0 : 1)
        }
    }

    private static func number(_ value: FieldValue) -> Double {
        switch value {
        case .int64(let value), .timestamp(let value): Double(value)
        case .double(let value): value
        default: .nan
        }
    }

    static func matches(_ entry: Entry, _ filter: QueryFilter) -> Bool {
        guard case .field(let name) = filter.field, let value = entry.fields[name] else { return false }
        let operand = filter.value
        func equal(_ a: FieldValue, _ b: FieldValue) -> Bool { compare(a, b) == 0 }
        func list(_ value: FieldValue) -> [FieldValue] { value.elements }
        func prefixed(_ text: FieldValue, _ prefix: FieldValue) -> Bool {
            guard case .string(let text) = text, case .string(let prefix) = prefix else { return false }
            return Array(text.utf8).starts(with: Array(prefix.utf8))
        }
        switch filter.comparator {
        case .equals: return equal(value, operand)
        case .notEquals: return !equal(value, operand)
        case .lessThan: return compare(value, operand) < 0
        case .lessThanOrEquals: return compare(value, operand) <= 0
        case .greaterThan: return compare(value, operand) > 0
        case .greaterThanOrEquals: return compare(value, operand) >= 0
        case .in: return list(operand).contains { equal(value, $0) }
        case .notIn: return !list(operand).contains { equal(value, $0) }
        case .beginsWith: return prefixed(value, operand)
        case .notBeginsWith: return !prefixed(value, operand)
        case .listContains: return list(value).contains { equal($0, operand) }
        case .notListContains: return !list(value).contains { equal($0, operand) }
        case .listContainsAny: return list(operand).contains { wanted in list(value).contains { equal($0, wanted) } }
        case .notListContainsAny: return !list(operand).contains { wanted in list(value).contains { equal($0, wanted) } }
        case .listContainsAll: return list(operand).allSatisfy { wanted in list(value).contains { equal($0, wanted) } }
        case .notListContainsAll: return !list(operand).allSatisfy { wanted in list(value).contains { equal($0, wanted) } }
        case .listMemberBeginsWith: return list(value).contains { prefixed($0, operand) }
        case .notListMemberBeginsWith: return !list(value).contains { prefixed($0, operand) }
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = value, case .string(let query) = operand else { return false }
            let have = Set(words(text)), want = words(query)
            return filter.comparator == .containsAllTokens ? want.allSatisfy(have.contains) : want.contains(where: have.contains)
        case .near: return false
        }
    }

    /// Lowercased runs of ASCII letters and digits.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
    }
}
