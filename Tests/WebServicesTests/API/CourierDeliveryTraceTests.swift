import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// What the web courier hands out is noted with how: the delivery tracer then says whether a
/// long poll or an event stream took each notification.
@Suite struct CourierDeliveryTraceTests {
    static func handover(_ server: APITestServer, _ record: String) throws -> TracedDelivery? {
        let trace = try server.store.traceDelivery(
            server.container, .development, database: .public, zoneName: ZoneID.defaultZoneName, recordName: record, as: .local)
        return trace.subscriptions.first { $0.subscription.subscriptionID == "notes" }?.notifications.first?.deliveries.first
    }

    @Test func aPollAndAStreamAreNotedAsTheWayEachNotificationWasFetched() throws {
        let server = try APITestServer()
        try server.defineNote(#"title STRING QUERYABLE"#)
        let token = try server.signIn()
        let pushToken = try server.store.createPushToken(server.container, .development, apnsEnvironment: "development", caller: .world)
        let target = try CourierAPITests.courierTarget(server, token: pushToken.token)
        try CourierAPITests.subscribe(server, token, #"{"subscriptionID":"notes","query":{"recordType":"Note"}}"#)

        try ChangesAPITests.create(server, "public", "polled", token: token)
        #expect(try Self.handover(server, "polled")?.fate == .waiting)
        #expect(try server.send("GET", target).json()["ck"]?["qry"]?["rid"] == "polled")
        let polled = try #require(try Self.handover(server, "polled"))
        #expect(polled.fate == .fetched && polled.channel == .longPoll && polled.time != nil)

        try ChangesAPITests.create(server, "public", "streamed", token: token)
        let client = try RawClient(port: server.port)
        try client.send("GET /webcourier/1/events?tok=\(PercentEncoding.encodeComponent(pushToken.token)) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readHead().status == 200)
        var text = ""
        while !text.contains(#""rid":"streamed""#), let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        client.close()
        let streamed = try #require(try Self.handover(server, "streamed"))
        #expect(streamed.fate == .fetched && streamed.channel == .eventStream)
        #expect(try Self.handover(server, "polled")?.channel == .longPoll, "each keeps its own")
    }
}
