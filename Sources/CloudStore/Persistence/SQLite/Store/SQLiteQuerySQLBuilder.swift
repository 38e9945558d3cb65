/// Turns a validated ``QueryPlan`` into one SQL statement over `records`: the type as a literal
/// (so that SQLite can use the type's partial indexes), filters on slot and system columns,
/// `rl_N` and `fts_N` subqueries for list and token filters, and keyset conditions to resume
/// after a position.
struct SQLiteQuerySQLBuilder {
    let plan: QueryPlan
    let type: SchemaCatalog.RecordType

    /// The statement, its parameters in order, and how many sort values each row carries after
    /// the record columns.
    struct Statement {
        var sql: String
        var parameters: [SQLiteValue]
        var sortCount: Int
    }

    /// The most values one statement binds, below SQLite's limit.
    static let maximumParameters = 30_000

    /// The statement for the plan. A plain plan's text comes from `texts` when a plan of its
    /// shape was built before on the connection, and then only its parameters are gathered.
    func build(reusing texts: inout SQLiteQueryTextCache) throws -> Statement {
        guard let shape = try shape() else { return try build() }
        if let sql = texts[shape] {
            return Statement(sql: sql, parameters: try plainParameters(), sortCount: plan.sorts.count)
        }
        let statement = try build()
        texts[shape] = statement.sql
        return statement
    }

    /// The plan's shape, or `nil` for a plan that is not plain (see ``SQLiteQueryShape``). Checks each
    /// field's column as `build()` does.
    func shape() throws -> SQLiteQueryShape? {
        guard plan.withinTrees == nil, plan.after == nil, plan.sorts.allSatisfy({ $0.relativeLocation == nil }),
            plan.filters.allSatisfy(Self.isPlain)
        else { return nil }
        // Room made first: a literal and then more room would be two buffers.
        var codes: [Int64] = []
        codes.reserveCapacity(5 + plan.filters.count * 3 + plan.sorts.count * 2)
        codes.append(type.id)
        codes.append(Int64(plan.zones.count))
        codes.append(plan.createdBy == nil ? 0 : 1)
        codes.append(plan.onlyKey == nil ? 0 : 1)
        codes.append(Int64(plan.filters.count))
        for filter in plan.filters {
            codes.append(try columnCode(filter.field))
            codes.append(Self.comparatorCode(filter.comparator))
            codes.append(Self.valueCode(filter))
        }
        for sort in plan.sorts {
            codes.append(try columnCode(sort.field))
            codes.append(sort.ascending ? 1 : 0)
        }
        return SQLiteQueryShape(codes: codes)
    }

    /// The condition keeping the records `r` of the hierarchies under `roots` in `zone`: the
    /// roots and every record below them, following parents down (UNION, not UNION ALL, so that
    /// a parent cycle ends), with its parameters. No root keeps nothing.
    static func withinTrees(_ roots: [String], zone: Int64) -> (sql: String, parameters: [SQLiteValue]) {
        guard !roots.isEmpty else { return ("0", []) }
        let sql = """
            r.name IN (WITH RECURSIVE tree(name) AS (VALUES \(Array(repeating: "(?)", count: roots.count).joined(separator: ", ")) \
            UNION SELECT c.name FROM records c JOIN tree t ON c.parent = t.name WHERE c.zone = ?) SELECT name FROM tree)
            """
        return (sql, roots.map { .text($0) } + [.integer(zone)])
    }

    /// Whether a filter's text depends only on its column, comparator and value count.
    static func isPlain(_ filter: QueryPlan.Filter) -> Bool {
        switch filter.comparator {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn, .beginsWith,
            .notBeginsWith:
            true
        default:
            false
        }
    }

    /// A plain plan's parameters, in the order `build()` binds them.
    private func plainParameters() throws -> [SQLiteValue] {
        // One buffer for them all, sized for a usual query: each filter binds one or two values.
        var parameters: [SQLiteValue] = []
        parameters.reserveCapacity(plan.zones.count + plan.filters.count * 2 + 3)
        Self.appendZoneKeys(of: plan, to: &parameters)
        if let creator = plan.createdBy { parameters.append(.text(creator)) }
        if let key = plan.onlyKey { parameters.append(.integer(key)) }
        for filter in plan.filters {
            try Self.appendPlainParameters(of: filter, in: plan, to: &parameters)
        }
        parameters.append(.integer(Int64(plan.limit)))
        return parameters
    }

    private static func appendZoneKeys(of plan: QueryPlan, to parameters: inout [SQLiteValue]) {
        for zone in plan.zones { parameters.append(.integer(zone.key)) }
    }

    /// A column's place in a shape: a slot of `records`, or a system column below zero.
    private func columnCode(_ field: PlannedField) throws -> Int64 {
        switch field {
        case .user(let definition): Int64(try catalogField(definition).slot ?? 0)
        case .system(.recordID): -1
        case .system(.createTime): -2
        case .system(.createdBy): -3
        case .system(.etag): -4
        case .system(.modTime): -5
        case .system(.modifiedBy): -6
        }
    }

    private static func comparatorCode(_ comparator: Comparator) -> Int64 {
        switch comparator {
        case .equals: 1
        case .notEquals: 2
        case .lessThan: 3
        case .lessThanOrEquals: 4
        case .greaterThan: 5
        case .greaterThanOrEquals: 6
        case .in: 7
        case .notIn: 8
        case .beginsWith: 9
        case .notBeginsWith: 10
        default: 0  // not plain: such a plan has no shape
        }
    }

    /// What of a plain filter's value its text depends on: how many values an `IN` lists,
    /// whether a prefix is empty.
    private static func valueCode(_ filter: QueryPlan.Filter) -> Int64 {
        switch filter.comparator {
        case .in, .notIn: Int64(filter.value.elements.count)
        case .beginsWith, .notBeginsWith:
            if case .string(let prefix) = filter.value { prefix.isEmpty ? 0 : 1 } else { -1 }
        default: 0
        }
    }

    func build() throws -> Statement {
        // One text and one parameter list, appended to in statement order: every query is
        // built here, and joining lists of pieces cost as much as the rest of the query.
        var whereParameters: [SQLiteValue] = []
        whereParameters.reserveCapacity(plan.zones.count + plan.filters.count * 2 + 4)
        var conditions = ""
        conditions.reserveCapacity(256)
        func condition(_ text: String) {
            if !conditions.isEmpty { conditions += " AND " }
            conditions += text
        }

        let zoneKeys = plan.zones.map { SQLiteValue.integer($0.key) }
        let zoneList = SQLiteValue.placeholders(zoneKeys.count)
        // The type id is ours, an integer: inlined so that the planner matches `WHERE type = N` indexes.
        condition("r.type = \(type.id)")
        condition("r.zone IN (\(zoneList))")
        whereParameters += zoneKeys
        if let creator = plan.createdBy {
            condition("r.created_by = ?")
            whereParameters.append(.text(creator))
        }
        if let roots = plan.withinTrees, let zone = plan.zones.first {
            let (text, parameters) = Self.withinTrees(roots, zone: zone.key)
            condition(text)
            whereParameters += parameters
        }
        if let key = plan.onlyKey {
            condition("r.rid = ?")
            whereParameters.append(.integer(key))
        }

        for filter in plan.filters {
            let (text, parameters) = try sql(for: filter, zoneList: zoneList, zoneKeys: zoneKeys)
            condition(text)
            whereParameters += parameters
        }

        // Sort keys: each is an expression, selected as s0, s1… so rows report their values.
        var sortExpressions: [(expression: String, parameters: [SQLiteValue], ascending: Bool)] = []
        for sort in plan.sorts {
            sortExpressions.append(try expression(for: sort))
        }
        if let position = plan.after {
            guard position.sortValues.count == sortExpressions.count else {
                throw CloudStoreError.badRequest("The continuation marker does not match the query")
            }
            let (text, keysetParameters) = keysetCondition(sortExpressions, position)
            condition(text)
            whereParameters += keysetParameters
        }

        var sql = Self.selectRecords
        sql.reserveCapacity(sql.utf8.count + conditions.utf8.count + 128)
        var parameters: [SQLiteValue] = []
        parameters.reserveCapacity(whereParameters.count + sortExpressions.count * 2 + 8)
        for (index, sort) in sortExpressions.enumerated() {
            sql += ", \(sort.expression) AS s\(index)"
            parameters += sort.parameters
        }

        sql += " FROM records r\nWHERE "
        sql += conditions
        sql += "\nORDER BY "
        for (index, sort) in sortExpressions.enumerated() {
            sql += "s\(index) \(sort.ascending ? "ASC" : "DESC"), "
        }
        sql += plan.tieBreakAscending ? "r.rid ASC LIMIT ?" : "r.rid DESC LIMIT ?"
        parameters += whereParameters
        parameters.append(.integer(Int64(plan.limit)))
        // SQLite binds at most 32,766 values per statement; a zone-wide query over many zones
        // with long value lists could ask for more.
        guard parameters.count <= Self.maximumParameters else {
            throw CloudStoreError.badRequest(
                "The query is too large to run: it names \(plan.zones.count) zones and needs \(parameters.count) values; query fewer zones or values"
            )
        }
        return Statement(sql: sql, parameters: parameters, sortCount: sortExpressions.count)
    }

    private static let selectRecords = "SELECT \(RecordColumns.selected)"

    // MARK: - Columns

    private func catalogField(_ definition: FieldDefinition) throws -> SchemaCatalog.Field {
        guard let field = type.fields[definition.name], (field.isProjected && field.slot != nil) || field.isSearchable else {
            throw CloudStoreError.internalError("Field '\(definition.name)' is not indexed in storage")
        }
        return field
    }

    /// The `records` column holding a field's comparable value (for a location, its latitude).
    private func column(_ field: PlannedField) throws -> String {
        switch field {
        case .system(let system): "r.\(RecordColumns.column(of: system))"
        case .user(let definition): "r.\(try catalogField(definition).column)"
        }
    }

    // MARK: - Filters

    private func sql(for filter: QueryPlan.Filter, zoneList: String, zoneKeys: [SQLiteValue]) throws -> (String, [SQLiteValue]) {
        if Self.isPlain(filter) {
            var parameters: [SQLiteValue] = []
            try Self.appendPlainParameters(of: filter, in: plan, to: &parameters)
            return (try plainText(of: filter, zoneList: zoneList), parameters)
        }
        let value = SQLiteEnvironmentSession.indexValue(filter.value)
        let values = filter.value.elements.map(SQLiteEnvironmentSession.indexValue)
        let placeholders = SQLiteValue.placeholders(values.count)
        if case .system(.recordID) = filter.field {
            throw CloudStoreError.badRequest("\(filter.comparator.rawValue) cannot be applied to record names")
        }
        let column = try column(filter.field)

        /// A subquery over the list table for this field, with an extra condition on `value`.
        func listSubquery(_ condition: String, _ parameters: [SQLiteValue], grouped: Int? = nil) throws -> (String, [SQLiteValue]) {
            guard case .user(let definition) = filter.field else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a list field")
            }
            let field = try catalogField(definition)
            var sql = "SELECT rid FROM \(type.listTable) WHERE field = ? AND zone IN (\(zoneList)) AND \(condition)"
            var all: [SQLiteValue] = [.integer(field.id)] + zoneKeys + parameters
            if let grouped {
                sql += " GROUP BY rid HAVING count(DISTINCT value) = ?"
                all.append(.integer(Int64(grouped)))
            }
            return (sql, all)
        }

        switch filter.comparator {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn, .beginsWith,
            .notBeginsWith:
            preconditionFailure("plain filters are written by plainText(of:zoneList:)")
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance,
                case .user(let definition) = filter.field
            else { throw CloudStoreError.badRequest("NEAR needs a location and a distance") }
            let field = try catalogField(definition)
            // A latitude band prunes with the index; the exact great-circle distance decides.
            let band = distance / 110_000 + 0.000_1
            return (
                "r.\(field.column) BETWEEN ? AND ? AND cumulus_distance(r.\(field.column), r.\(field.longitudeColumn), ?, ?) <= ?",
                [
                    .real(center.latitude - band), .real(center.latitude + band), .real(center.latitude), .real(center.longitude),
                    .real(distance),
                ]
            )
        case .containsAllTokens, .containsAnyTokens:
            guard case .user(let definition) = filter.field, case .string(let text) = filter.value else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a string")
            }
            let field = try catalogField(definition)
            let tokens = TextTokens.tokens(of: text)
            let joiner = filter.comparator == .containsAllTokens ? " AND " : " OR "
            // Every token is an FTS5 string: quoted, with any quote doubled, so no input reaches
            // the query syntax (tokens hold only letters, digits and marks anyway).
            let match = "\(field.searchColumn) : (" + tokens.map(Self.ftsString).joined(separator: joiner) + ")"
            return ("r.rid IN (SELECT rowid FROM \(type.searchTable) WHERE \(type.searchTable) MATCH ?)", [.text(match)])
        case .listContains:
            let (sub, parameters) = try listSubquery("value = ?", [value])
            return ("r.rid IN (\(sub))", parameters)
        case .notListContains:
            let (sub, parameters) = try listSubquery("value = ?", [value])
            return ("\(column) IS NOT NULL AND r.rid NOT IN (\(sub))", parameters)
        case .listContainsAny:
            if values.isEmpty { return ("0", []) }
            let (sub, parameters) = try listSubquery("value IN (\(placeholders))", values)
            return ("r.rid IN (\(sub))", parameters)
        case .notListContainsAny:
            if values.isEmpty { return ("\(column) IS NOT NULL", []) }
            let (sub, parameters) = try listSubquery("value IN (\(placeholders))", values)
            return ("\(column) IS NOT NULL AND r.rid NOT IN (\(sub))", parameters)
        case .listContainsAll:
            let distinct = Set(values)
            if distinct.isEmpty { return ("\(column) IS NOT NULL", []) }
            let marks = SQLiteValue.placeholders(distinct.count)
            let (sub, parameters) = try listSubquery("value IN (\(marks))", Array(distinct), grouped: distinct.count)
            return ("r.rid IN (\(sub))", parameters)
        case .notListContainsAll:
            let distinct = Set(values)
            if distinct.isEmpty { return ("0", []) }
            let marks = SQLiteValue.placeholders(distinct.count)
            let (sub, parameters) = try listSubquery("value IN (\(marks))", Array(distinct), grouped: distinct.count)
            return ("\(column) IS NOT NULL AND r.rid NOT IN (\(sub))", parameters)
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard case .string(let prefix) = filter.value else {
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) needs a string")
            }
            let (condition, bounds): (String, [SQLiteValue]) =
                prefix.isEmpty ? ("1", []) : ("value >= ? AND value < ?", [.text(prefix), .textBytes(Self.successor(of: prefix))])
            let (sub, parameters) = try listSubquery(condition, bounds)
            if filter.comparator == .listMemberBeginsWith { return ("r.rid IN (\(sub))", parameters) }
            return ("\(column) IS NOT NULL AND r.rid NOT IN (\(sub))", parameters)
        }
    }

    /// `text` as an FTS5 string literal.
    static func ftsString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The text of a plain filter (see ``isPlain(_:)``). A filter on record names is answered
    /// by the `records(zone, name)` index.
    private func plainText(of filter: QueryPlan.Filter, zoneList: String) throws -> String {
        let count = filter.comparator == .in || filter.comparator == .notIn ? filter.value.elements.count : 1
        if case .system(.recordID) = filter.field {
            let select = "SELECT rid FROM records WHERE zone IN (\(zoneList)) AND name"
            switch filter.comparator {
            case .equals: return "r.rid IN (\(select) = ?)"
            case .notEquals: return "r.rid NOT IN (\(select) = ?)"
            case .in: return count == 0 ? "0" : "r.rid IN (\(select) IN (\(SQLiteValue.placeholders(count))))"
            case .notIn: return count == 0 ? "1" : "r.rid NOT IN (\(select) IN (\(SQLiteValue.placeholders(count))))"
            default: throw CloudStoreError.badRequest("\(filter.comparator.rawValue) cannot be applied to record names")
            }
        }
        let column = try column(filter.field)
        switch filter.comparator {
        case .equals: return "\(column) = ?"
        case .notEquals: return "\(column) <> ?"
        case .lessThan: return "\(column) < ?"
        case .lessThanOrEquals: return "\(column) <= ?"
        case .greaterThan: return "\(column) > ?"
        case .greaterThanOrEquals: return "\(column) >= ?"
        case .in: return count == 0 ? "0" : "\(column) IN (\(SQLiteValue.placeholders(count)))"
        case .notIn: return count == 0 ? "\(column) IS NOT NULL" : "\(column) NOT IN (\(SQLiteValue.placeholders(count)))"
        case .beginsWith, .notBeginsWith:
            guard case .string(let prefix) = filter.value else { throw CloudStoreError.badRequest("BEGINS_WITH needs a string") }
            let range = prefix.isEmpty ? "\(column) IS NOT NULL" : "(\(column) >= ? AND \(column) < ?)"
            if filter.comparator == .beginsWith { return range }
            return prefix.isEmpty ? "0" : "\(column) IS NOT NULL AND NOT \(range)"
        default:
            preconditionFailure("\(filter.comparator) is not a plain comparator")
        }
    }

    /// Appends the parameters a plain filter's text binds, in order.
    private static func appendPlainParameters(of filter: QueryPlan.Filter, in plan: QueryPlan, to parameters: inout [SQLiteValue]) throws {
        func appendElements() {
            if case .list(_, let values) = filter.value {
                for value in values { parameters.append(SQLiteEnvironmentSession.indexValue(value)) }
            } else {
                parameters.append(SQLiteEnvironmentSession.indexValue(filter.value))
            }
        }
        let isList = filter.comparator == .in || filter.comparator == .notIn
        if case .system(.recordID) = filter.field {
            switch filter.comparator {
            case .equals, .notEquals, .in, .notIn:
                // An empty IN list binds nothing: its text is a constant.
                guard !(isList && filter.value.elements.isEmpty) else { return }
                appendZoneKeys(of: plan, to: &parameters)
                appendElements()
                return
            default:
                throw CloudStoreError.badRequest("\(filter.comparator.rawValue) cannot be applied to record names")
            }
        }
        if isList { return appendElements() }
        switch filter.comparator {
        case .beginsWith, .notBeginsWith:
            guard case .string(let prefix) = filter.value else { throw CloudStoreError.badRequest("BEGINS_WITH needs a string") }
            guard !prefix.isEmpty else { return }
            parameters.append(.text(prefix))
            parameters.append(.textBytes(successor(of: prefix)))
        default:
            parameters.append(SQLiteEnvironmentSession.indexValue(filter.value))
        }
    }

    /// The smallest byte string greater than every string starting with `prefix`: the prefix
    /// with its last byte incremented (UTF-8 never uses 0xFF, so the increment never carries).
    static func successor(of prefix: String) -> [UInt8] {
        var bytes = Array(prefix.utf8)
        bytes[bytes.count - 1] += 1
        return bytes
    }

    // MARK: - Sorting and resuming

    private func expression(for sort: QueryPlan.Sort) throws -> (expression: String, parameters: [SQLiteValue], ascending: Bool) {
        if let center = sort.relativeLocation, case .user(let definition) = sort.field {
            let field = try catalogField(definition)
            return (
                "cumulus_distance(r.\(field.column), r.\(field.longitudeColumn), ?, ?)",
                [.real(center.latitude), .real(center.longitude)], sort.ascending
            )
        }
        return (try column(sort.field), [], sort.ascending)
    }

    /// Rows strictly after `position` in the query's order, where NULL sorts first ascending and
    /// last descending, and ties fall to the record key.
    private func keysetCondition(
        _ sorts: [(expression: String, parameters: [SQLiteValue], ascending: Bool)], _ position: QueryPlan.Position
    ) -> (String, [SQLiteValue]) {
        var alternatives: [String] = []
        var parameters: [SQLiteValue] = []
        var equalPrefix: [String] = []
        var equalParameters: [SQLiteValue] = []

        for (index, sort) in sorts.enumerated() {
            let value = Self.sqliteValue(position.sortValues[index])
            let after: String?
            var afterParameters: [SQLiteValue] = []
            switch (sort.ascending, value) {
            case (true, .null):
                after = "\(sort.expression) IS NOT NULL"
                afterParameters = sort.parameters
            case (true, _):
                after = "\(sort.expression) > ?"
                afterParameters = sort.parameters + [value]
            case (false, .null):
                after = nil
            case (false, _):
                after = "(\(sort.expression) < ? OR \(sort.expression) IS NULL)"
                afterParameters = sort.parameters + [value] + sort.parameters
            }
            if let after {
                alternatives.append((equalPrefix + [after]).joined(separator: " AND "))
                parameters += equalParameters + afterParameters
            }
            if case .null = value {
                equalPrefix.append("\(sort.expression) IS NULL")
                equalParameters += sort.parameters
            } else {
                equalPrefix.append("\(sort.expression) = ?")
                equalParameters += sort.parameters + [value]
            }
        }
        let keyAfter = plan.tieBreakAscending ? "r.rid > ?" : "r.rid < ?"
        alternatives.append((equalPrefix + [keyAfter]).joined(separator: " AND "))
        parameters += equalParameters + [.integer(position.key)]
        var condition = "(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"
        // Implied by the alternatives, but a plain range lets SQLite start its index scan there.
        if let first = sorts.first, first.ascending, position.sortValues.first != .null {
            condition = "\(first.expression) >= ? AND " + condition
            parameters = first.parameters + [Self.sqliteValue(position.sortValues[0])] + parameters
        }
        return (condition, parameters)
    }

    static func sqliteValue(_ value: SortKeyValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .text(let text): .text(text)
        }
    }
}
