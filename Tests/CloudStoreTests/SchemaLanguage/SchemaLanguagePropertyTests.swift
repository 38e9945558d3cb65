import CloudStore
import Testing

@Suite("Schema language: generated schemas")
struct SchemaLanguagePropertyTests {
    @Test("Random valid schemas survive export and parse unchanged", arguments: 0..<300)
    func roundTrip(seed: Int) throws {
        var generator = RandomSchemaGenerator(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D)
        let schema = generator.schema()

        let text = SchemaLanguage.export(schema)
        let parsed = try SchemaLanguage.parse(text)
        #expect(parsed == schema, "seed \(seed):\n\(text)")
        #expect(SchemaLanguage.export(parsed) == text, "seed \(seed)")
    }

    @Test("The generator covers what the language can say")
    func coverage() {
        var fields: [FieldDefinition] = []
        var roles = 0
        for seed in 0..<300 {
            var generator = RandomSchemaGenerator(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D)
            let schema = generator.schema()
            roles += schema.roles.count
            fields += schema.recordTypes.flatMap(\.userFields)
        }
        // Guards against a generator that silently stops producing some shape of field.
        #expect(roles > 100)
        #expect(fields.contains { $0.isEncrypted && $0.type.isList })
        #expect(fields.contains { $0.numberPreference == .unspecified && $0.type.isList })
        #expect(fields.contains { $0.type == .asset })
        #expect(fields.contains { $0.indexes == [.queryable, .searchable, .sortable] })
        #expect(fields.contains { $0.name.contains(".") })
        #expect(fields.contains { $0.name.contains("\"") })
    }
}
