extension CloudStore {
    /// How far back the schema guard reads production's refusals by default: a day.
    public static let schemaGuardSpan: Int64 = 86_400_000

    /// What production refused since `since` (a day back by default) for want of a record type,
    /// field or index development has: the gaps, the calls each refused, and the changes that
    /// fill it. Gaps production has filled since are left out.
    public func productionSchemaGuard(_ container: ContainerIdentifier, since: Int64? = nil) throws -> SchemaGuard {
        let from = since ?? (now - Self.schemaGuardSpan)
        let entries = try requestLog.entries(
            RequestLogFilter(
                container: container.rawValue, environment: Environment.production.rawValue, from: from, limit: 10_000,
                schemaRefusalsOnly: true))
        // Most containers have none: no schema is read for them, as every console page asks.
        guard !entries.isEmpty else {
            return SchemaGuard(
                entries: [], production: Schema(), development: Schema(),
                difference: SchemaDifference(production: Schema(), development: Schema()), since: from)
        }
        let difference = try schemaDifference(container)
        return SchemaGuard(
            entries: entries, production: try schema(container, .production), development: try schema(container, .development),
            difference: difference, since: from)
    }
}
