import TestSupport
import Testing

@testable import CloudStore

/// Copying production's records to development with personal fields masked, on the backend of
/// the run.
@Suite struct MaskedCopyTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Person (
                "___recordID" REFERENCE QUERYABLE,
                name STRING QUERYABLE,
                email STRING QUERYABLE,
                phone STRING,
                home LOCATION,
                team STRING,
                GRANT READ TO "_world"
            );
            RECORD TYPE Order (
                "___recordID" REFERENCE QUERYABLE,
                buyer REFERENCE QUERYABLE,
                buyerEmail STRING,
                total DOUBLE,
                GRANT READ TO "_world"
            );
        """

    static let people: [(name: String, email: String, phone: String, team: String)] = [
        ("Ada Lovelace", "ada@analytical.org", "+44 20 7946 0018", "engines"),
        ("Grace Hopper", "grace@navy.mil", "+1 (202) 555-0143", "compilers"),
        ("Alan Turing", "alan@bletchley.uk", "+44 1908 640404", "engines"),
    ]

    /// A store whose production holds three people and their orders, with Person's name, email,
    /// phone and home and Order's buyerEmail marked personal.
    static func production() throws -> TemporaryStore {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        try store.store.deploySchema(store.container, deployedBy: "test")
        let database = try store.database(.production)
        for (index, person) in people.enumerated() {
            try database.create(
                "Person", "person-\(index)",
                [
                    "name": .string(person.name), "email": .string(person.email), "phone": .string(person.phone),
                    "home": .location(Location(latitude: 51.5 + Double(index), longitude: -0.12)), "team": .string(person.team),
                ])
            try database.create(
                "Order", "order-\(index)",
                [
                    "buyer": .reference(Reference(recordName: "person-\(index)")), "buyerEmail": .string(person.email),
                    "total": .double(10.5 * Double(index + 1)),
                ])
        }
        for field in ["name", "email", "phone", "home"] {
            try store.store.setPersonal(true, PersonalField(recordType: "Person", field: field), store.container, by: .local)
        }
        try store.store.setPersonal(true, PersonalField(recordType: "Order", field: "buyerEmail"), store.container, by: .local)
        return store
    }

    @Test func aCopyMasksEveryPersonalValueAndReferencesStillLineUp() throws {
        let store = try Self.production()
        let people = try store.store.copyToDevelopment(store.container, .types(["Person"]), by: .local)
        #expect(
            people.copied == 3 && people.maskedValues == 12
                && people.maskedFields == ["Person.email", "Person.home", "Person.name", "Person.phone"])
        let orders = try store.store.copyToDevelopment(store.container, .types(["Order"]), by: .local)
        #expect(orders.copied == 3 && orders.maskedValues == 3)

        let production = try store.database(.production)
        let development = try store.database()
        let productionValues = Set(
            try production.lookup((0..<3).flatMap { [RecordLookup("person-\($0)"), RecordLookup("order-\($0)")] }).flatMap {
                $0.record.map { Array($0.fields.values) } ?? []
            })
        for index in 0..<3 {
            let person = try #require(try development.lookup([RecordLookup("person-\(index)")]).first?.record)
            let order = try #require(try development.lookup([RecordLookup("order-\(index)")]).first?.record)
            // Every personal value is a fake, never a production value.
            for field in ["name", "email", "phone", "home"] {
                let value = try #require(person.fields[field])
                #expect(!productionValues.contains(value), "Person.\(field) of person-\(index) is production's")
            }
            #expect(!productionValues.contains(try #require(order.fields["buyerEmail"])))
            // What is not personal comes as it is; the reference still points at its person,
            // and the email the order repeats is the person's fake.
            #expect(person.fields["team"] == .string(Self.people[index].team))
            #expect(order.fields["buyer"] == .reference(Reference(recordName: "person-\(index)")))
            #expect(order.fields["buyerEmail"] == person.fields["email"], "the join on the email still holds")
            #expect(order.fields["total"] == .double(10.5 * Double(index + 1)))
        }
        // Copied again: the same fakes, so nothing changes.
        let again = try store.store.copyToDevelopment(store.container, .types(["Person"]), by: .local)
        #expect(again.copied == 0 && again.unchanged == 3)
        let actions = try store.store.auditEntries(AuditFilter(action: "data.copy-to-development")).count
        #expect(actions == 3)
    }

    @Test func aCopyOfAQueryTakesOnlyItsRecords() throws {
        let store = try Self.production()
        let query = Query(recordType: "Person", filters: [QueryFilter(.field("email"), .equals, .string("grace@navy.mil"))])
        let outcome = try store.store.copyToDevelopment(store.container, .query(query), by: .local)
        #expect(outcome.copied == 1)
        let found = try store.database().lookup((0..<3).map { RecordLookup("person-\($0)") }).map { $0.record != nil }
        #expect(found == [false, true, false])
    }

    @Test func theWrongCallerIsRefusedAndReferencesCannotBePersonal() throws {
        let store = try Self.production()
        try store.store.addOperator("vera", password: "operator password", role: .viewer, by: .local)
        try store.store.addOperator("dev", password: "operator password", role: .developer, containers: [], by: .local)
        let vera = OperatorIdentity.session(operatorName: "vera", sessionID: "s")
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try store.store.copyToDevelopment(store.container, .types(["Person"]), by: vera)
        }
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try store.store.setPersonal(false, PersonalField(recordType: "Person", field: "email"), store.container, by: vera)
        }
        #expect(try store.store.developmentContents(store.container).records == 0)
        // A developer may: they read production and change development.
        let dev = OperatorIdentity.session(operatorName: "dev", sessionID: "d")
        #expect(try store.store.copyToDevelopment(store.container, .types(["Person"]), by: dev).copied == 3)
        #expect(
            throws: CloudStoreError.badRequest(
                "Order.buyer is a REFERENCE: only values with a fake of their own (text, numbers, times, locations, bytes) are personal")
        ) {
            try store.store.setPersonal(true, PersonalField(recordType: "Order", field: "buyer"), store.container, by: .local)
        }
        #expect(try store.store.personalFields(store.container).fields.count == 5)
    }
}
