/// Turns a validated ``QueryPlan`` into one PostgreSQL statement over an environment schema's
/// `records`: the type as a literal (so that the planner can use the type's partial indexes),
/// filters on slot and system columns, list-table and word subqueries for list and token
/// filters, and keyset conditions to resume after a position. Values are `$n` parameters.
///
/// It answers as ``SQLiteQuerySQLBuilder`` does on SQLite: NULLs sort first ascending and last
/// descending, ties fall to the record key, texts compare by code point.
struct PostgresQuerySQLBuilder {
    let plan: QueryPlan
    let type: SchemaCatalog.RecordType
    /// The environment's PostgreSQL schema, quoted.
    private let schema: String

    /// A builder for `plan` over `type`, in the environment schema `schema` (unquoted).
    init(plan: QueryPlan, type: SchemaCatalog.RecordType, schema: String) {
        self.plan = plan
        self.type = type
        self.schema = PostgresIdentifier.quote(schema)
    }

    /// The statement, its parameters in order, and the kind of each sort value every row
    /// carries after the record columns.
    struct Statement {
        var sql: String
        var parameters: [PostgresValue]
        var sortKinds: [PostgresColumnKind]
    }

    /// The most values one statement binds, well below PostgreSQL's 65,535.
    static let maximumParameters = 30_000

    /// The condition keeping the records `r` of the hierarchies under `roots` in `zone`: the
    /// roots and every record below them, following parents down (UNION, not UNION ALL, so that
    /// a parent cycle ends), with its parameters, numbered from `$first`. No root keeps nothing.
    /// - Parameter records: the quoted `records` table of the environment's schema.
    static func withinTrees(_ roots: [String], zone: Int64, records: String, first: Int) -> (sql: String, parameters: [PostgresValue]) {
        guard !roots.isEmpty else { return ("false", []) }
        let values = roots.indices.map { "($\(first + $0)::text COLLATE \"C\")" }.joined(separator: ", ")
        let sql = """
            r.name IN (WITH RECURSIVE tree(name) AS (VALUES \(values) \
            UNION SELECT c.name FROM \(records) c JOIN tree t ON c.parent = t.name WHERE c.zone = $\(first + roots.count)) \
            SELECT name FROM tree)
            """
        return (sql, roots.map { .text($0) } + [.integer(zone)])
    }

    /// Values bound so far; each bound value's placeholder is its position.
    private struct Binder {
        var values: [PostgresValue] = []

        mutating func bind(_ value: PostgresValue) -> String {
            values.append(value)
            return "$\(values.count)"
        }

        mutating func bind(_ list: [PostgresValue]) -> String {
            list.map { bind($0) }.joined(separator: ", ")
        }
    }

    /// A sort key: its expression (its values bound once and named again wherever it is
    /// repeated), its direction and the kind of its values.
    private typealias SortKey = (expression: String, ascending: Bool, kind: PostgresColumnKind)

    /// The statement for the plan.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a filter storage cannot answer, a
    ///   continuation position that does not fit the plan, or a query binding too many values.
    func build() throws -> Statement {
        var binder = Binder()
        var conditions: [String] = []

        // The type id is ours, an integer: inlined so that the planner matches `WHERE type = N` indexes.
        conditions.append("r.type = \(type.id)")
        let zoneList = binder.bind(plan.zones.map { .integer($0.key) })
        conditions.append("r.zone IN (\(zoneList))")
        if let creator = plan.createdBy {
            conditions.append("r.created_by = \(binder.bind(.text(creator)))")
        }
        if let roots = plan.withinTrees, let zone = plan.zones.first {
            let (condition, values) = Self.withinTrees(roots, zone: zone.key, records: schema + ".records", first: binder.values.count + 1)
            conditions.append(condition)
            binder.values += values
        }
        if let key = plan.onlyKey {
            conditions.append("r.rid = \(binder.bind(.integer(key)))")
        }
        for filter in plan.filters {
            conditions.append(try condition(for: filter, zoneList: zoneList, binder: &binder))
        }

        let sorts = try plan.sorts.map { try sortKey(for: $0, binder: &binder) }
        if let position = plan.after {
            guard position.sortValues.count == sorts.count else {
                throw CloudStoreError.badRequest("The continuation marker does not match the query")
            }
            conditions.append(keysetCondition(sorts, position, binder: &binder))
        }

        var sql = "SELECT \(RecordColumns.selected)"
        for (index, sort) in sorts.enumerated() { sql += ", \(sort.expression) AS s\(index)" }
        sql += "\nFROM \(schema).records r\nWHERE " + conditions.joined(separator: " AND ") + "\nORDER BY "
        for sort in sorts {
            // The sort's expression, not its output name, so that the planner matches it to an index.
            sql += sort.ascending ? "\(sort.expression) ASC NULLS FIRST, " : "\(sort.expression) DESC NULLS LAST, "
        }
        sql += plan.tieBreakAscending ? "r.rid ASC" : "r.rid DESC"
        sql += " LIMIT \(binder.bind(.integer(plan.limit)))"
        guard binder.values.count <= Self.maximumParameters else {
            throw CloudStoreError.badRequest(
                "The query is too large to run: it names \(plan.zones.count) zones and needs \(binder.values.count) values; query fewer zones or values"
            )
        }
        return Statement(sql: sql, parameters: binder.values, sortKinds: sorts.map(\.kind))
    }

    // MARK: - Columns

    private func catalogField(_ definition: FieldDefinition) throws -> SchemaCatalog.Field {
        guard let field = type.fields[definition.name], (field.isProjected && field.slot != nil) || field.isSearchable else {
            throw CloudStoreError.internalError("Field '\(definition.name)' is not indexed in storage")
        }
        return field
    }

    /// The `records` column holding a field's comparable value (for a location, its latitude),
    /// and the kind of its values.
    private func column(_ field: PlannedField) throws -> (name: String, kind: PostgresColumnKind) {
        switch field {
        case .system(let system):
            ("r.\(RecordColumns.column(of: system))", PostgresColumnKind.system(system))
        case .user(let definition):
            ("r.\(try catalogField(definition).column)", PostgresColumnKind.slot(of: definition))
        }
    }

    // MARK: - Filters

    private func condition(for filter: QueryPlan.Filter, zoneList: String, binder: inout Binder) throws -> String {
        if case .system(.recordID) = filter.field {
            // Answered by the `records(zone, name)` index.
            let names = filter.value.elements.map { PostgresValue.text(Self.recordName(of: $0)) }
            switch filter.comparator {
            case .equals: return "r.name = \(binder.bind(.text(Self.recordName(of: filter.value))))"
            case .notEquals: return "r.name <> \(binder.bind(.text(Self.recordName(of: filter.value))))"
            case .in: return names.isEmpty ? "false" : "r.name IN (\(binder.bind(names)))"
            case .notIn: return names.isEmpty ? "true" : "r.name NOT IN (\(binder.bind(names)))"
            default: throw CloudStoreError.badRequest("\(filter.comparator.rawValue) cannot be applied to record names")
            }
        }
        let (column, kind) = try column(filter.field)
        func value(_ value: FieldValue) -> PostgresValue { PostgresProjections.indexValue(value, as: kind) }
        let elementKind = PostgresColumnKind.element(of: filter.field.type.scalar)
        let elements = filter.value.elements.map { PostgresProjections.indexValue($0, as: elementKind) }

        /// A subquery over the field's list table, with a condition on `value`.
        func listSubquery(_ condition: String, groupedBy count: Int? = nil) throws -> String {
            guard case .user(let definition) = filter.field else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a list field")
            }
            let table = PostgresProjections.listTable(type, try catalogField(definition))
            var sql = "SELECT rid FROM \(schema).\(table) WHERE zone IN (\(zoneList)) AND \(condition)"
            if let count { sql += " GROUP BY rid HAVING count(DISTINCT value) = \(count)" }
            return sql
        }
        /// Records holding a list (an empty one too) none of whose elements pass `condition`.
        func noneOf(_ condition: String) throws -> String {
            "\(column) IS NOT NULL AND r.rid NOT IN (\(try listSubquery(condition)))"
        }

        switch filter.comparator {
        case .equals: return "\(column) = \(binder.bind(value(filter.value)))"
        case .notEquals: return "\(column) <> \(binder.bind(value(filter.value)))"
        case .lessThan: return "\(column) < \(binder.bind(value(filter.value)))"
        case .lessThanOrEquals: return "\(column) <= \(binder.bind(value(filter.value)))"
        case .greaterThan: return "\(column) > \(binder.bind(value(filter.value)))"
        case .greaterThanOrEquals: return "\(column) >= \(binder.bind(value(filter.value)))"
        case .in:
            return elements.isEmpty ? "false" : "\(column) IN (\(binder.bind(elements)))"
        case .notIn:
            return elements.isEmpty ? "\(column) IS NOT NULL" : "\(column) NOT IN (\(binder.bind(elements)))"
        case .beginsWith, .notBeginsWith:
            guard case .string(let prefix) = filter.value else { throw CloudStoreError.badRequest("BEGINS_WITH needs a string") }
            if prefix.isEmpty { return filter.comparator == .beginsWith ? "\(column) IS NOT NULL" : "false" }
            let range = prefixRange(column, prefix, binder: &binder)
            return filter.comparator == .beginsWith ? range : "\(column) IS NOT NULL AND NOT \(range)"
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance,
                case .user(let definition) = filter.field
            else { throw CloudStoreError.badRequest("NEAR needs a location and a distance") }
            let field = try catalogField(definition)
            // A latitude band prunes with the index; the exact great-circle distance decides.
            let band = distance / 110_000 + 0.000_1
            let low = binder.bind(.double(center.latitude - band)), high = binder.bind(.double(center.latitude + band))
            let latitude = binder.bind(.double(center.latitude)), longitude = binder.bind(.double(center.longitude))
            return """
                r.\(field.column) BETWEEN \(low) AND \(high) AND \
                \(schema).cumulus_distance(r.\(field.column), r.\(field.longitudeColumn), \(latitude), \(longitude)) <= \(binder.bind(.double(distance)))
                """
        case .containsAllTokens, .containsAnyTokens:
            guard case .user(let definition) = filter.field, case .string(let text) = filter.value else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a string")
            }
            let field = try catalogField(definition)
            guard let query = SearchWords.query(text, all: filter.comparator == .containsAllTokens) else { return "false" }
            // The field id inlined, so that the planner matches the field's partial GIN index.
            return """
                r.rid IN (SELECT rid FROM \(schema).\(PostgresProjections.searchTable(type)) \
                WHERE field = \(field.id) AND words @@ \(binder.bind(.text(query)))::tsquery)
                """
        case .listContains:
            return "r.rid IN (\(try listSubquery("value = \(binder.bind(elementValue(filter.value, elementKind)))")))"
        case .notListContains:
            return try noneOf("value = \(binder.bind(elementValue(filter.value, elementKind)))")
        case .listContainsAny:
            if elements.isEmpty { return "false" }
            return "r.rid IN (\(try listSubquery("value IN (\(binder.bind(elements)))")))"
        case .notListContainsAny:
            if elements.isEmpty { return "\(column) IS NOT NULL" }
            return try noneOf("value IN (\(binder.bind(elements)))")
        case .listContainsAll, .notListContainsAll:
            var seen: Set<PostgresValue> = []
            let distinct = elements.filter { seen.insert($0).inserted }
            if distinct.isEmpty { return filter.comparator == .listContainsAll ? "\(column) IS NOT NULL" : "false" }
            let sub = try listSubquery("value IN (\(binder.bind(distinct)))", groupedBy: distinct.count)
            return filter.comparator == .listContainsAll ? "r.rid IN (\(sub))" : "\(column) IS NOT NULL AND r.rid NOT IN (\(sub))"
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard case .string(let prefix) = filter.value else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a string")
            }
            let condition = prefix.isEmpty ? "true" : prefixRange("value", prefix, binder: &binder)
            if filter.comparator == .listMemberBeginsWith { return "r.rid IN (\(try listSubquery(condition)))" }
            return try noneOf(condition)
        }
    }

    private func elementValue(_ value: FieldValue, _ kind: PostgresColumnKind) -> PostgresValue {
        PostgresProjections.indexValue(value, as: kind)
    }

    /// The name a record-name filter value stands for: a reference's record name, or a string.
    private static func recordName(of value: FieldValue) -> String {
        switch value {
        case .reference(let reference): reference.recordName
        case .string(let string): string
        default: ""
        }
    }

    /// Texts of `expression` starting with `prefix`, as a range an index can scan: from the
    /// prefix up to the prefix with its last character moved one code point on (texts compare
    /// by code point under `COLLATE "C"`).
    private func prefixRange(_ expression: String, _ prefix: String, binder: inout Binder) -> String {
        let low = binder.bind(.text(prefix))
        guard let successor = Self.successor(of: prefix) else { return "\(expression) >= \(low)" }
        return "(\(expression) >= \(low) AND \(expression) < \(binder.bind(.text(successor))))"
    }

    /// The smallest text greater than every text starting with `prefix`, or `nil` when there is
    /// none (the prefix is all U+10FFFF). Unlike SQLite's byte successor it stays valid UTF-8,
    /// which PostgreSQL's texts must be.
    static func successor(of prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
        }
        return nil
    }

    // MARK: - Sorting and resuming

    private func sortKey(for sort: QueryPlan.Sort, binder: inout Binder) throws -> SortKey {
        if let center = sort.relativeLocation, case .user(let definition) = sort.field {
            let field = try catalogField(definition)
            let latitude = binder.bind(.double(center.latitude)), longitude = binder.bind(.double(center.longitude))
            return (
                "\(schema).cumulus_distance(r.\(field.column), r.\(field.longitudeColumn), \(latitude), \(longitude))", sort.ascending,
                .real
            )
        }
        let (column, kind) = try column(sort.field)
        return (column, sort.ascending, kind)
    }

    /// Rows strictly after `position` in the query's order, where NULL sorts first ascending and
    /// last descending, and ties fall to the record key.
    private func keysetCondition(_ sorts: [SortKey], _ position: QueryPlan.Position, binder: inout Binder) -> String {
        var alternatives: [String] = []
        var equalPrefix: [String] = []
        var values: [String?] = []
        for (index, sort) in sorts.enumerated() {
            let value = Self.postgresValue(position.sortValues[index], as: sort.kind)
            let placeholder = value == .null ? nil : binder.bind(value)
            values.append(placeholder)
            let after: String? =
                switch (sort.ascending, placeholder) {
                case (true, nil): "\(sort.expression) IS NOT NULL"
                case (true, let placeholder?): "\(sort.expression) > \(placeholder)"
                case (false, nil): nil
                case (false, let placeholder?): "(\(sort.expression) < \(placeholder) OR \(sort.expression) IS NULL)"
                }
            if let after { alternatives.append((equalPrefix + [after]).joined(separator: " AND ")) }
            equalPrefix.append(placeholder.map { "\(sort.expression) = \($0)" } ?? "\(sort.expression) IS NULL")
        }
        let key = binder.bind(.integer(position.key))
        alternatives.append((equalPrefix + [plan.tieBreakAscending ? "r.rid > \(key)" : "r.rid < \(key)"]).joined(separator: " AND "))
        var condition = "(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"
        // Implied by the alternatives, but a plain range lets the index scan start there (only
        // ascending: descending, the NULLs after the position would fall outside it).
        if let first = sorts.first, first.ascending, let placeholder = values[0] {
            condition = "\(first.expression) >= \(placeholder) AND " + condition
        }
        return condition
    }

    /// A continuation position's sort value, bound as its column's kind takes it.
    static func postgresValue(_ value: SortKeyValue, as kind: PostgresColumnKind) -> PostgresValue {
        switch value {
        case .null: .null
        case .integer(let integer): kind == .real ? .double(Double(integer)) : .integer(integer)
        case .real(let real): .double(real)
        case .text(let text): .text(text)
        }
    }
}
