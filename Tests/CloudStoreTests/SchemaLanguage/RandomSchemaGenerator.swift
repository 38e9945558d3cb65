import CloudStore
import TestSupport

/// Builds random schemas that the schema language can express: unique names (awkward ones
/// included), every type, encryption, number preference and list, only the indexes each
/// type allows, and grants to implicit or created roles.
struct RandomSchemaGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// Names a bare word could not carry, or that look like keywords.
    private static let awkwardNames = [
        "type", "grant", "Queryable", "string", "LIST", "preferred", "as", "cloudkit.share", "cloudkit.title",
        "test role", "_private", "9lives", "a-b", "café", #"say "hi""#, #"back\slash"#, "tab\there", "x",
    ]
    private static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    private static let wordCharacters = letters + Array("0123456789_")

    mutating func schema() -> Schema {
        var roleNames = Set<String>()
        let roles = (0..<int(0...3)).map { _ in uniqueName(in: &roleNames, avoiding: SystemRole.all) }
        var typeNames = Set<String>()
        let recordTypes = (0..<int(0...4)).map { _ in
            recordType(named: uniqueName(in: &typeNames), roles: roles)
        }
        return Schema(roles: roles, recordTypes: recordTypes)
    }

    private mutating func recordType(named name: String, roles: [String]) -> RecordTypeDefinition {
        var fields: [FieldDefinition] = []
        for system in SystemField.allCases where chance(0.3) {
            var field = system.definition
            field.indexes = indexes(for: field)
            fields.append(field)
        }
        var fieldNames = Set<String>()
        for _ in 0..<int(0...6) {
            var field = userField(named: uniqueName(in: &fieldNames))
            field.indexes = indexes(for: field)
            // Where a user field lands among the system fields must not matter.
            fields.insert(field, at: int(0...fields.count))
        }
        let grantRoles = Array(SystemRole.all).sorted() + roles
        let grants = (0..<int(0...3)).map { _ in
            let permissions = Permission.allCases.filter { _ in chance(0.5) }
            let chosen = permissions.isEmpty ? [Permission.allCases[int(0...2)]] : permissions
            return Grant(chosen.shuffled(using: &random), to: grantRoles[int(0...grantRoles.count - 1)])
        }
        return RecordTypeDefinition(name: name, fields: fields, grants: grants)
    }

    private mutating func userField(named name: String) -> FieldDefinition {
        let isList = chance(0.25)
        switch int(0...9) {
        case 0...5:
            let scalar = ScalarType.allCases[int(0...ScalarType.allCases.count - 1)]
            return FieldDefinition(name: name, type: FieldType(scalar, isList: isList))
        case 6...7:
            let encryptable: [ScalarType] = [.bytes, .string, .double, .int64, .location, .timestamp]
            let scalar = encryptable[int(0...encryptable.count - 1)]
            return FieldDefinition(name: name, type: FieldType(scalar, isList: isList), isEncrypted: true)
        default:
            let preference = [NumberPreference.unspecified, .int64, .double][int(0...2)]
            let scalar: ScalarType = preference == .int64 ? .int64 : .double
            return FieldDefinition(name: name, type: FieldType(scalar, isList: isList), numberPreference: preference)
        }
    }

    private mutating func indexes(for field: FieldDefinition) -> Set<IndexKind> {
        guard !field.isEncrypted else { return [] }
        return Set(IndexKind.allCases.filter { $0.applies(to: field.type) && chance(0.4) })
    }

    /// A name not in `names` (nor in `avoiding`), added to `names`.
    private mutating func uniqueName(in names: inout Set<String>, avoiding: Set<String> = []) -> String {
        while true {
            let name: String
            if chance(0.25) {
                name = Self.awkwardNames[int(0...Self.awkwardNames.count - 1)]
            } else {
                let tail = (0..<int(0...10)).map { _ in Self.wordCharacters[int(0...Self.wordCharacters.count - 1)] }
                name = String([Self.letters[int(0...Self.letters.count - 1)]] + tail)
            }
            if !names.contains(name), !avoiding.contains(name) {
                names.insert(name)
                return name
            }
        }
    }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    private mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }
}
