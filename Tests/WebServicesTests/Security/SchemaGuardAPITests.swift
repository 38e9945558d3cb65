import CloudStore
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

/// Production refuses what its schema lacks; the schema guard counts those refusals by the
/// record type, field or index development has, with the calls' request ids, and a deployment
/// of exactly what fills a gap lets the next call through.
@Suite struct SchemaGuardAPITests {
    private static func requestID(_ response: APIResponse) throws -> String {
        try #require(response.headers.first { $0.name.lowercased() == "x-apple-request-uuid" }?.value)
    }

    @Test func productionRefusalsAreCountedByGapAndAFillingDeploymentCuresExactlyThem() throws {
        let server = try APITestServer()
        try server.store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT WRITE TO "_creator",
                                   GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
            """, into: server.container, .development)
        try server.store.deploySchema(server.container, deployedBy: "test")
        // Development moves on: a field, an index and a record type production lacks.
        try server.store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE SORTABLE, mood STRING,
                                   GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
                RECORD TYPE Tag ( name STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
            """, into: server.container, .development)
        let token = try server.store.createAPIToken(server.container, .production, allowedOrigins: ["*"])
        let session = try server.store.signIn(server.container, .production, name: server.userName, password: server.password).webAuthToken
        func post(_ operation: String, _ body: String) throws -> APIResponse {
            let path = server.path("public", operation, environment: "production")
            return try server.send(
                "POST", "\(path)?ckAPIToken=\(token.token)&ckWebAuthToken=\(PercentEncoding.encodeComponent(session))", body: body)
        }
        func create(_ type: String, _ fields: String) throws -> APIResponse {
            try post(
                "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"\#(type)","fields":{\#(fields)}}}]}"#)
        }
        var moods: [String] = []
        for _ in 0..<3 { moods.append(try Self.requestID(try create("Note", #""title":{"value":"t"},"mood":{"value":"calm"}"#))) }
        let sorted = try post("records/query", #"{"query":{"recordType":"Note","sortBy":[{"fieldName":"title"}]}}"#)
        #expect(sorted.status == 400)
        let tag = try create("Tag", #""name":{"value":"x"}"#)
        let nowhere = try create("Nowhere", #""x":{"value":"y"}"#)
        #expect(String(decoding: nowhere.body, as: UTF8.self).contains("BAD_REQUEST"))
        #expect(try create("Note", #""title":{"value":"fine"}"#).status == 200)

        let guarded = try server.store.productionSchemaGuard(server.container)
        // The most refusals first, then the latest.
        #expect(guarded.gaps.map(\.packed) == ["field:Note:mood", "type:Tag", "index:Note:title:SORTABLE"])
        let mood = try #require(guarded.findings.first)
        #expect(mood.refusals == 3 && mood.latestRequestIDs == moods.reversed())
        #expect(mood.gap.description == "field mood of type Note")
        #expect(mood.changes.map(\.description) == ["add field Note.mood STRING"])
        #expect(guarded.findings[2].latestRequestIDs == [try Self.requestID(sorted)])
        #expect(guarded.findings[2].changes.map(\.description).allSatisfy { $0.hasPrefix("add index SORTABLE on Note.title") })
        #expect(guarded.findings[1].latestRequestIDs == [try Self.requestID(tag)])
        #expect(guarded.findings[1].changes.map(\.description) == ["add record type Tag (1 field)", "add field Tag.name STRING"])
        #expect(guarded.refusalsNoDeploymentCures == 1, "Nowhere is in no schema")

        // A deployment of only the field: production gets it and nothing else.
        let preview = try server.store.schemaDifference(server.container, filling: [mood.gap])
        #expect(preview.changes.map(\.description) == ["add field Note.mood STRING"])
        let deployment = try server.store.deploySchema(server.container, filling: [mood.gap], deployedBy: "test")
        #expect(deployment.changes == ["add field Note.mood STRING"])
        let production = try server.store.schema(server.container, .production)
        #expect(production.recordType("Tag") == nil)
        #expect(production.recordType("Note")?.field("title")?.indexes == [.queryable])
        #expect(try create("Note", #""title":{"value":"t"},"mood":{"value":"calm"}"#).status == 200)
        let after = try server.store.productionSchemaGuard(server.container)
        #expect(after.gaps.map(\.packed) == ["type:Tag", "index:Note:title:SORTABLE"], "the filled gap is no longer counted")
        #expect(throws: CloudStoreError.self) {
            try server.store.deploySchema(server.container, filling: [SchemaGap(.recordType, recordType: "Nowhere")], deployedBy: "test")
        }
    }
}
