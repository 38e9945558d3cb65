import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Queries storage could not run are refused up front with a reason; full-text input never
/// reaches the full-text query language.
@Suite struct QueryLimitsTests {
    @Test func tooManyFiltersSortsOrValuesAreABadRequestWithAReason() throws {
        let (store, database) = try QueryFixture.make()
        defer { withExtendedLifetime(store) {} }
        let filters = (0..<1_001).map { QueryFilter(.field("i"), .greaterThan, .int64(Int64(-$0))) }
        #expect(throws: CloudStoreError.badRequest("A query may have at most 100 filters; this one has 1001")) {
            try database.query(QueryRequest(query: Query(recordType: "Thing", filters: filters)))
        }
        // A hundred still run.
        let hundred = try database.query(QueryRequest(query: Query(recordType: "Thing", filters: Array(filters.prefix(100)))))
        #expect(Set(hundred.records.map(\.recordName)) == ["a", "b", "c"])

        let sorts = (0..<11).map { _ in QuerySort(.field("i")) }
        #expect(throws: CloudStoreError.badRequest("A query may have at most 10 sort descriptors; this one has 11")) {
            try database.query(QueryRequest(query: Query(recordType: "Thing", sorts: sorts)))
        }
        let values = FieldValue.list(.int64, (0..<1_001).map { .int64(Int64($0)) })
        #expect(throws: CloudStoreError.self) {
            try database.query(QueryRequest(query: Query(recordType: "Thing", filters: [QueryFilter(.field("i"), .in, values)])))
        }
        let words = (0..<65).map { "w\($0)" }.joined(separator: " ")
        #expect(throws: CloudStoreError.self) {
            try database.query(
                QueryRequest(query: Query(recordType: "Thing", filters: [QueryFilter(.field("text"), .containsAnyTokens, .string(words))])))
        }
    }

    @Test(arguments: [
        #"fox" OR "dog"#, #"fox"*"#, "NEAR(fox dog)", "fox AND", "^fox", "text:fox", "\"\"\"", "fox\u{301}\"dog",
        "\u{600}\"fox", "fox\u{200D}\"", "(fox", "fox)", "-fox", "+fox", "fox NOT dog",
    ])
    func searchInputNeverReachesTheFullTextSyntax(_ text: String) throws {
        let (store, database) = try QueryFixture.make()
        defer { withExtendedLifetime(store) {} }
        // Whatever the input, the query runs (or, without a word, is refused as such) and
        // matches by its words alone, diacritics ignored as the index ignores them.
        let query = QueryRequest(
            query: Query(recordType: "Thing", filters: [QueryFilter(.field("text"), .containsAnyTokens, .string(text))]))
        let words = Set(Self.folded(text))
        guard !words.isEmpty else {
            #expect(throws: CloudStoreError.badRequest("CONTAINS_ANY_TOKENS on field 'text' needs at least one word to search for")) {
                try database.query(query)
            }
            return
        }
        let found = try database.query(query)
        for record in found.records {
            guard case .string(let stored) = record.fields["text"] else { Issue.record("\(record)"); continue }
            #expect(!Set(Self.folded(stored)).isDisjoint(with: words), "\(text) matched \(stored)")
        }
    }

    private static func folded(_ text: String) -> [String] {
        TextTokens.tokens(of: text).map { $0.folding(options: .diacriticInsensitive, locale: nil) }
    }

    @Test func tokensHoldOnlyLettersDigitsAndMarks() {
        #expect(TextTokens.tokens(of: #"Fox"dog "x"#) == ["fox", "dog", "x"])
        #expect(TextTokens.tokens(of: "e\u{301}\"tat") == ["e\u{301}", "tat"])
        #expect(TextTokens.tokens(of: "\u{600}\"a").allSatisfy { !$0.contains("\"") })
        #expect(TextTokens.tokens(of: "naïve café 42") == ["naïve", "café", "42"])
        #expect(SQLiteQuerySQLBuilder.ftsString(#"a"b"#) == #""a""b""#)
    }
}
