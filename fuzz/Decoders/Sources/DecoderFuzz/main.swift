// libFuzzer driver: each input is the JSON body of one CloudKit Web Services request, answered
// in process by the real API over a real store. The property: no input gets a 5xx answer (an
// internal error is a bug: bad input must be BAD_REQUEST with a reason), and nothing traps.
import CloudStore
import Foundation
import FuzzerDriver
import HTTPServer
import WebServices

let fixture = Fixture()

private let endpoints = [
    "public/records/query", "public/records/modify", "public/records/lookup", "private/records/query",
    "private/records/modify", "private/zones/modify", "private/zones/lookup", "public/tokens/register",
]

/// One input: the first byte picks the endpoint and whether a user is signed in; the rest is
/// the body.
func fuzzDecoders(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count > 0, let start else { return 0 }
    let selector = Int(start[0])
    let body = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
    let endpoint = endpoints[selector % endpoints.count]
    var target = "/database/1/\(fixture.container)/development/\(endpoint)?ckAPIToken=\(fixture.apiToken)"
    if selector & 0x80 != 0 || endpoint.hasPrefix("private") {
        target += "&ckWebAuthToken=" + PercentEncoding.encodeComponent(fixture.webAuthToken)
    }
    let request = HTTPRequest(method: .post, target: target, headers: HTTPHeaders(), body: body, requestID: "fuzz")
    let response = fixture.responder.respond(to: request)
    if response.status.code >= 500 {
        let text: String
        if case .bytes(let bytes) = response.body { text = String(decoding: bytes, as: UTF8.self) } else { text = "" }
        fatalError("\(endpoint) answered \(response.status.code): \(text)\nbody: \(String(decoding: body, as: UTF8.self))")
    }
    return 0
}

var arguments = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &argv) { fuzzDecoders($0, $1) })
