import TestSupport
import Testing

@testable import CloudStore

/// A plain query's text is built once per shape and reused; what each query binds stays its own.
@Suite struct QueryTextCacheTests {
    /// The fixture's type as storage lays it out: projected fields in slots, in order.
    static let storedType: SchemaCatalog.RecordType = {
        var fields: [String: SchemaCatalog.Field] = [:]
        var nextSlot = 0
        for (index, definition) in QueryFixture.type.fields.enumerated() {
            var field = SchemaCatalog.Field(id: Int64(index + 1), definition: definition, slot: nil)
            if field.isProjected {
                field.slot = nextSlot
                nextSlot += field.slotWidth
            }
            fields[definition.name] = field
        }
        return SchemaCatalog.RecordType(id: 7, definition: QueryFixture.type, fields: fields, dialect: SQLiteRecordTypeDialect())
    }()

    /// Plain plans over a small domain, so that many share a shape: random fields, plain
    /// comparators, values, sorts, zones, `createdBy` and `onlyKey`.
    static func plans(count: Int, seed: UInt64) -> [QueryPlan] {
        var random = SeededGenerator(seed: seed)
        let planner = QueryPlanner(schema: Schema(recordTypes: [QueryFixture.type]))
        let fields: [QueryField] = [
            .field("s"), .field("i"), .field("d"), .field("t"), .field("r"), .system(.recordID), .system(.createTime),
        ]
        let comparators: [Comparator] = [
            .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn, .beginsWith, .notBeginsWith,
        ]
        let zones = (1...3).map {
            StoredZone(
                key: Int64($0 * 10), zoneID: ZoneID(zoneName: "z\($0)", ownerRecordName: "_o"),
                database: DatabaseID(scope: .public, owner: "_o"), created: 0)
        }
        func scalar(for field: QueryField) -> FieldValue {
            switch field {
            case .field("s"): .string(["", "a", "ap", "zz"][random.next(below: 4)])
            case .field("i"): .int64(Int64(random.next(below: 5)) - 2)
            case .field("d"): .double(Double(random.next(below: 5)) / 2)
            case .field("t"), .system(.createTime): .timestamp(Int64(random.next(below: 3)) * 1000)
            default: QueryFixture.ref(["x", "y", "a"][random.next(below: 3)])
            }
        }
        func scalarType(of field: QueryField) -> ScalarType {
            switch field {
            case .field("s"): .string
            case .field("i"): .int64
            case .field("d"): .double
            case .field("t"), .system(.createTime): .timestamp
            default: .reference
            }
        }
        var plans: [QueryPlan] = []
        while plans.count < count {
            var filters: [QueryFilter] = []
            for _ in 0..<random.next(below: 3) {
                let field = fields[random.next(below: fields.count)]
                let comparator = comparators[random.next(below: comparators.count)]
                let value: FieldValue
                if comparator == .in || comparator == .notIn {
                    value = .list(scalarType(of: field), (0..<random.next(below: 3)).map { _ in scalar(for: field) })
                } else {
                    value = scalar(for: field)
                }
                filters.append(QueryFilter(field, comparator, value))
            }
            let sorts =
                random.next(below: 2) == 0
                ? []
                : [
                    QuerySort(
                        [.field("s"), .field("i"), .system(.createTime)][random.next(below: 3)], ascending: random.next(below: 2) == 0)
                ]
            let query = Query(recordType: "Thing", filters: filters, sorts: sorts)
            guard
                var plan = try? planner.plan(
                    query, zones: Array(zones.prefix(1 + random.next(below: 2))), limit: 1 + random.next(below: 100))
            else { continue }
            if random.next(below: 3) == 0 { plan.createdBy = ["_u1", "_u2"][random.next(below: 2)] }
            if random.next(below: 4) == 0 { plan.onlyKey = Int64(random.next(below: 1000)) }
            plans.append(plan)
        }
        return plans
    }

    @Test func plansOfOneShapeHaveOneTextAndEachKeepsItsOwnParameters() throws {
        let plans = Self.plans(count: 600, seed: 12)
        var texts = SQLiteQueryTextCache()
        var textOfShape: [SQLiteQueryShape: String] = [:]
        var reused = 0
        for plan in plans {
            let builder = SQLiteQuerySQLBuilder(plan: plan, type: Self.storedType)
            let fresh: SQLiteQuerySQLBuilder.Statement
            do { fresh = try builder.build() } catch {
                // A plan storage refuses is refused the same way with the cache.
                #expect(throws: CloudStoreError.self) { try builder.build(reusing: &texts) }
                continue
            }
            let shape = try #require(try builder.shape(), "every plan here is plain")
            if let earlier = textOfShape[shape] {
                #expect(earlier == fresh.sql, "one shape, two texts: \(earlier) / \(fresh.sql)")
                reused += 1
            }
            textOfShape[shape] = fresh.sql
            let cached = try builder.build(reusing: &texts)
            #expect(cached.sql == fresh.sql)
            #expect(cached.parameters == fresh.parameters, "\(plan)")
            #expect(cached.sortCount == fresh.sortCount)
        }
        #expect(reused > 200, "the corpus shares shapes, so the cached texts are used")
        #expect(textOfShape.count > 40, "and it has many shapes")
    }

    @Test func plansThatAreNotPlainHaveNoShape() throws {
        let planner = QueryPlanner(schema: Schema(recordTypes: [QueryFixture.type]))
        let zone = StoredZone(
            key: 1, zoneID: ZoneID(zoneName: "z", ownerRecordName: "_o"), database: DatabaseID(scope: .public, owner: "_o"), created: 0)
        let listQuery = Query(recordType: "Thing", filters: [QueryFilter(.field("sl"), .listContains, .string("red"))])
        #expect(try SQLiteQuerySQLBuilder(plan: planner.plan(listQuery, zones: [zone], limit: 5), type: Self.storedType).shape() == nil)
        var resumed = try planner.plan(
            Query(recordType: "Thing", filters: [QueryFilter(.field("i"), .equals, .int64(1))]), zones: [zone], limit: 5)
        #expect(try SQLiteQuerySQLBuilder(plan: resumed, type: Self.storedType).shape() != nil)
        resumed.after = QueryPlan.Position(sortValues: [], key: 3)
        #expect(try SQLiteQuerySQLBuilder(plan: resumed, type: Self.storedType).shape() == nil)
    }
}
