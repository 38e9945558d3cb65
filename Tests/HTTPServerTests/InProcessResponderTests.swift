import HTTPServer
import Synchronization
import Testing

/// Requests answered without sockets get what the server would answer: routes and their
/// parameters, middleware, 404, 405, a handler's chosen error and the 500 of an unexpected one.
@Suite struct InProcessResponderTests {
    private struct Unexpected: Error {}

    private static func text(_ response: HTTPResponse) -> String {
        if case .bytes(let bytes) = response.body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    @Test func answersAsTheServerWould() {
        var router = Router()
        router.get("/notes/:id") { request in .text("note \(request.pathParameters["id"] ?? "?")") }
        router.post("/refuse") { _ in throw HTTPError(.conflict, message: "taken") }
        router.post("/fail") { _ in throw Unexpected() }
        let failures = Mutex<[String]>([])
        let responder = InProcessResponder(router) { error in failures.withLock { $0.append("\(error)") } }

        let found = responder.respond(to: HTTPRequest(method: .get, target: "/notes/n%201?x=1"))
        #expect(found.status == .ok)
        #expect(Self.text(found) == "note n 1")
        #expect(responder.respond(to: HTTPRequest(method: .get, target: "/nowhere")).status == .notFound)
        #expect(responder.respond(to: HTTPRequest(method: .delete, target: "/notes/1")).status == .methodNotAllowed)
        #expect(responder.respond(to: HTTPRequest(method: .get, target: "/notes/%zz")).status == .badRequest)

        let refused = responder.respond(to: HTTPRequest(method: .post, target: "/refuse"))
        #expect(refused.status == .conflict)
        #expect(Self.text(refused).contains("taken"))
        #expect(failures.withLock { $0 }.isEmpty)

        #expect(responder.respond(to: HTTPRequest(method: .post, target: "/fail")).status == .internalServerError)
        #expect(failures.withLock { $0 } == ["Unexpected()"])
    }
}
