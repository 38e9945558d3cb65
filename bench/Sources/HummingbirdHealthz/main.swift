// A Hummingbird 2 server answering `GET /healthz` with the same bytes and headers as
// `cumulus serve`: `{"status":"ok","version":"…","uptimeSeconds":N}` as
// `application/json; charset=utf-8`, plus an `X-Request-Id` header.
// Usage: HummingbirdHealthz PORT
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8081 : 8081
let started = Date()
let requestCounter = Atomic<UInt64>(0)

let router = Router()
router.get("healthz") { _, _ -> Response in
    let uptime = Int(Date().timeIntervalSince(started))
    let json = "{\"status\":\"ok\",\"version\":\"0.1.0\",\"uptimeSeconds\":\(uptime)}"
    let id = requestCounter.wrappingAdd(1, ordering: .relaxed).newValue
    var headers = HTTPFields()
    headers[.contentType] = "application/json; charset=utf-8"
    headers[HTTPField.Name("X-Request-Id")!] = String(id, radix: 16)
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
}

var logger = Logger(label: "hummingbird-healthz")
logger.logLevel = .warning
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    logger: logger
)
try await app.runService()
