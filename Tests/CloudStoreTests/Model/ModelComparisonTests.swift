import TestSupport
import Testing

@testable import CloudStore

/// Random sequences of modifications, lookups and queries, run against the store and against
/// ``ReferenceModel``; every outcome must agree.
@Suite struct ModelComparisonTests {
    static let schema = RecordTypeDefinition(
        name: "Item",
        fields: [
            FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
            FieldDefinition(name: "s", type: .string, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "i", type: .int64, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "d", type: .double, indexes: [.queryable, .sortable]),
            FieldDefinition(name: "tags", type: .list(.string), indexes: [.queryable]),
            FieldDefinition(name: "nums", type: .list(.int64), indexes: [.queryable]),
            FieldDefinition(name: "text", type: .string, indexes: [.searchable]),
        ])

    @Test(arguments: [12_648_430, 42, 2_026] as [UInt64])
    func storeAndModelAgreeOverRandomOperations(seed: UInt64) throws {
        let store = try TemporaryStore()
        try store.setSchema([Self.schema])
        let database = try store.privateDatabase(of: "_p")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        var model = ReferenceModel()
        model.zones["Z"] = [:]
        var random = SeededGenerator(seed: seed)
        let generator = OperationGenerator()
        var operations = 0
        var queries = 0
        var seenTags = Set<String>()

        while operations < 10_000 {
            let zone = random.next(below: 3) == 0 ? "Z" : "_defaultZone"
            switch random.next(below: 10) {
            case 0..<6:
                let batch = (0..<(1 + random.next(below: 5))).map { _ in generator.operation(&random, model: model, zone: zone) }
                let unique = Dictionary(batch.map { ($0.recordName ?? "", $0) }, uniquingKeysWith: { first, _ in first })
                let ops = batch.filter { unique[$0.recordName ?? ""] == $0 }.uniqued()
                let atomic = random.next(below: 2) == 0
                let actual = try database.modify(ModifyRequest(operations: ops, zoneName: zone, atomic: atomic)).map(Self.outcome)
                let expected = model.modify(ops, zone: zone, atomic: atomic)
                #expect(actual.map(\.withNewTag) == expected, "seed \(seed) after \(operations) operations: \(ops)")
                if actual.map(\.withNewTag) != expected { return }
                for case .saved(let name, let tag, _) in actual {
                    #expect(seenTags.insert(tag).inserted, "seed \(seed): the save of \(name) got a change tag given before")
                }
                model.adoptTags(actual, zone: zone)
                operations += ops.count
            case 6..<9:
                let query = generator.query(&random)
                let expected = model.query(query, zone: zone)
                let limit = 1 + random.next(below: 7)
                var names: [String] = []
                var marker: String?
                repeat {
                    let page = try database.query(
                        QueryRequest(query: query, zoneName: zone, resultsLimit: limit, continuationMarker: marker))
                    #expect(page.records.count == min(limit, expected.count - names.count))
                    names += page.records.map(\.recordName)
                    marker = page.continuationMarker
                } while marker != nil && names.count <= expected.count
                #expect(names == expected, "seed \(seed) after \(operations) operations: \(query)")
                if names != expected { return }
                operations += 1
                queries += 1
            default:
                let names = (0..<(1 + random.next(below: 4))).map { _ in generator.name(&random) }
                let actual = try database.lookup(names.map { RecordLookup($0) }, zoneName: zone).map(Self.outcome)
                let expected = names.map { name in
                    model.zones[zone]?[name].map { ReferenceModel.Outcome.saved(name: name, tag: $0.tag, fields: $0.fields) }
                        ?? .failed("NOT_FOUND")
                }
                #expect(actual == expected, "seed \(seed) after \(operations) operations: lookup \(names)")
                operations += names.count
            }
        }
        #expect(queries > 1_000)
    }

    static func outcome(_ result: RecordResult) -> ReferenceModel.Outcome {
        switch result {
        case .record(let record): .saved(name: record.recordName, tag: record.changeTag, fields: record.fields)
        case .deleted(let name, _): .deleted(name)
        case .withheld(let name, let tag, _): .saved(name: name, tag: tag, fields: [:])
        case .failure(_, let error): .failed(code(error))
        }
    }

    static func code(_ error: CloudStoreError) -> String {
        switch error {
        case .badRequest: "BAD_REQUEST"
        case .notFound: "NOT_FOUND"
        case .conflict: "CONFLICT"
        case .atomicFailure: "ATOMIC_ERROR"
        default: "\(error)"
        }
    }
}

/// Builds random operations and queries over a small space of names and values, so that
/// conflicts, collisions and matches are frequent.
struct OperationGenerator {
    let names = (0..<12).map { "r\($0)" }
    let strings = ["apple", "apricot", "banana", "Apple", "berry", "", "ap"]
    let words = ["quick", "brown", "fox", "lazy", "dog", "Quick"]
    let doubles: [Double] = [-1.5, 0, 0.5, 2.25, 3]

    func name(_ random: inout SeededGenerator) -> String { names[random.next(below: names.count)] }

    func value(of field: String, _ random: inout SeededGenerator) -> FieldValue {
        switch field {
        case "s": return .string(strings[random.next(below: strings.count)])
        case "i": return .int64(Int64(random.next(below: 7)) - 3)
        case "d": return .double(doubles[random.next(below: doubles.count)])
        case "tags": return .list(.string, (0..<random.next(below: 4)).map { _ in .string(strings[random.next(below: strings.count)]) })
        case "nums": return .list(.int64, (0..<random.next(below: 4)).map { _ in .int64(Int64(random.next(below: 5))) })
        default:
            let separators = [" ", ", ", "! ", "-"]
            return .string(
                (0..<(1 + random.next(below: 3))).map { _ in words[random.next(below: words.count)] }
                    .joined(separator: separators[random.next(below: separators.count)]))
        }
    }

    func fields(_ random: inout SeededGenerator) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for field in ["s", "i", "d", "tags", "nums", "text"] where random.next(below: 3) != 0 {
            fields[field] = value(of: field, &random)
        }
        return fields
    }

    func operation(_ random: inout SeededGenerator, model: ReferenceModel, zone: String) -> RecordOperation {
        let kind = RecordOperation.Kind.allCases[random.next(below: RecordOperation.Kind.allCases.count)]
        let name = self.name(&random)
        let current = model.zones[zone]?[name]?.tag
        let tag: String? =
            switch random.next(below: 10) {
            case 0: nil
            case 1: "stale"
            default: current ?? "1"
            }
        let type: String? = random.next(below: 12) == 0 ? "Other" : "Item"
        let cleared: Set<String> = random.next(below: 4) == 0 ? ["s", "tags"] : []
        return RecordOperation(
            kind, recordName: name, recordType: type, recordChangeTag: tag,
            fields: kind.isDelete ? [:] : fields(&random), clearedFields: kind.isDelete ? [] : cleared)
    }

    func query(_ random: inout SeededGenerator) -> Query {
        var filters: [QueryFilter] = []
        for _ in 0..<random.next(below: 3) {
            let filter: QueryFilter
            switch random.next(below: 8) {
            case 0:
                filter = QueryFilter(
                    .field("s"),
                    [.equals, .notEquals, .lessThan, .greaterThanOrEquals, .beginsWith, .notBeginsWith][random.next(below: 6)],
                    value(of: "s", &random))
            case 1:
                filter = QueryFilter(
                    .field("i"), [.equals, .lessThan, .lessThanOrEquals, .greaterThan, .notEquals][random.next(below: 5)],
                    value(of: "i", &random))
            case 2:
                filter = QueryFilter(.field("i"), [.in, .notIn][random.next(below: 2)], value(of: "nums", &random))
            case 3:
                filter = QueryFilter(
                    .field("d"), [.greaterThan, .lessThanOrEquals, .equals][random.next(below: 3)], value(of: "d", &random))
            case 4:
                filter = QueryFilter(
                    .field("tags"),
                    [.listContains, .notListContains, .listMemberBeginsWith, .notListMemberBeginsWith][random.next(below: 4)],
                    value(of: "s", &random))
            case 5:
                filter = QueryFilter(
                    .field("tags"), [.listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll][random.next(below: 4)],
                    value(of: "tags", &random))
            case 6:
                filter = QueryFilter(
                    .field("nums"), [.listContains, .notListContains][random.next(below: 2)], .int64(Int64(random.next(below: 5))))
            default:
                filter = QueryFilter(
                    .field("text"), [.containsAllTokens, .containsAnyTokens][random.next(below: 2)],
                    .string(words[random.next(below: words.count)]))
            }
            if case .string(let text) = filter.value, filter.comparator.isTokenSearch, TextTokens.tokens(of: text).isEmpty { continue }
            filters.append(filter)
        }
        let sorts = (0..<random.next(below: 3)).map { _ in
            QuerySort(.field(["s", "i", "d"][random.next(below: 3)]), ascending: random.next(below: 2) == 0)
        }
        return Query(recordType: "Item", filters: filters, sorts: sorts)
    }
}

extension Array where Element == RecordOperation {
    /// Keeps the first operation for each record name.
    func uniqued() -> [RecordOperation] {
        var seen = Set<String>()
        return filter { seen.insert($0.recordName ?? "").inserted }
    }
}
