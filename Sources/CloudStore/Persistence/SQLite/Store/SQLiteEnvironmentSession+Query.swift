extension SQLiteEnvironmentSession {
    func query(_ plan: QueryPlan) throws -> [QueryRow] {
        guard let type = catalog.types[plan.recordType], !plan.zones.isEmpty else { return [] }
        let statement = try SQLiteQuerySQLBuilder(plan: plan, type: type).build(reusing: &connection.queryTexts)
        // Most queries search one zone: no table to find a row's zone in.
        let onlyZone = plan.zones.count == 1 ? plan.zones[0].zoneID : nil
        let zones = onlyZone != nil ? [:] : Dictionary(uniqueKeysWithValues: plan.zones.map { ($0.key, $0.zoneID) })
        return try connection.statement(statement.sql).rows(statement.parameters) { row in
            let stored = try storedRecord(from: row, zoneID: onlyZone ?? zones[row.integer(13)] ?? plan.zones[0].zoneID)
            var sortValues: [SortKeyValue] = []
            for index in 0..<statement.sortCount {
                switch row.value(14 + Int32(index)) {
                case .integer(let integer): sortValues.append(.integer(integer))
                case .real(let real): sortValues.append(.real(real))
                case .text(let text): sortValues.append(.text(text))
                default: sortValues.append(.null)
                }
            }
            return QueryRow(stored: stored, sortValues: sortValues)
        }
    }
}
