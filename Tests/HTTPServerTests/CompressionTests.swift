import CZlib
import HTTPServer
import Testing

/// Inflates gzip data with zlib directly (not through the server's own `Gzip` type).
private func inflateGzip(_ data: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: 1 << 22)
    var input = data
    let status = input.withUnsafeMutableBufferPointer { inputBuffer in
        output.withUnsafeMutableBufferPointer { outputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            stream.next_out = outputBuffer.baseAddress
            stream.avail_out = uInt(outputBuffer.count)
            return inflate(&stream, Z_FINISH)
        }
    }
    guard status == Z_STREAM_END else { return nil }
    return Array(output[0..<Int(stream.total_out)])
}

@Suite struct CompressionTests {
    static let document = String(repeating: #"{"recordName":"A","fields":{"title":{"value":"hello world"}}},"#, count: 200)

    private func server() throws -> TestServer {
        try TestServer.start { router in
            router.get("/big") { _ in .json("[" + CompressionTests.document + "{}]") }
            router.get("/small") { _ in .json(#"{"ok":true}"#) }
            router.get("/png") { _ in HTTPResponse(headers: ["Content-Type": "image/png"], bytes: Array(repeating: 0, count: 5000)) }
        }
    }

    @Test func gzipsLargeTextForClientsThatAcceptIt() throws {
        let test = try server()
        defer { test.stop() }
        let response = try test.request(get("/big", headers: "Accept-Encoding: br, gzip;q=0.8\r\n"))
        #expect(response.status == 200)
        #expect(response.header("Content-Encoding") == "gzip")
        #expect(response.header("Vary") == "Accept-Encoding")
        let original = Array(("[" + CompressionTests.document + "{}]").utf8)
        #expect(response.body.count < original.count / 5)
        #expect(inflateGzip(response.body) == original)
        #expect(Gzip.decompress(response.body) == original)
    }

    @Test func leavesBodiesAloneOtherwise() throws {
        let test = try server()
        defer { test.stop() }
        let refused = try test.request(get("/big", headers: "Accept-Encoding: gzip;q=0\r\n"))
        #expect(refused.header("Content-Encoding") == nil)
        #expect(refused.text == "[" + CompressionTests.document + "{}]")
        #expect(try test.request(get("/big")).header("Content-Encoding") == nil)
        #expect(try test.request(get("/small", headers: "Accept-Encoding: gzip\r\n")).header("Content-Encoding") == nil)
        #expect(try test.request(get("/png", headers: "Accept-Encoding: gzip\r\n")).header("Content-Encoding") == nil)
    }
}
