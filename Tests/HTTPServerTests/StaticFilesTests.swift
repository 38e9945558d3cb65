import Foundation
import Glibc
import HTTPServer
import TestSupport
import Testing

/// A temporary `Public/` folder with a secret file beside it.
struct PublicFolder {
    let base: String
    let root: String

    init() throws {
        base = NSTemporaryDirectory() + "cumulus-static-\(UUID().uuidString)"
        root = base + "/Public"
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/css", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/docs", withIntermediateDirectories: true)
        try "body { color: red; }\n".write(toFile: root + "/css/site.css", atomically: true, encoding: .utf8)
        try String(repeating: "console.log('cumulus');\n", count: 200).write(toFile: root + "/app.js", atomically: true, encoding: .utf8)
        try "0123456789abcdefghij".write(toFile: root + "/digits.txt", atomically: true, encoding: .utf8)
        try "<h1>docs</h1>".write(toFile: root + "/docs/index.html", atomically: true, encoding: .utf8)
        try "top secret".write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
        try "hidden".write(toFile: root + "/.env", atomically: true, encoding: .utf8)
        symlink(base + "/secret.txt", root + "/escape.txt")
        symlink(base, root + "/outside")
        symlink(root + "/digits.txt", root + "/alias.txt")
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }
}

@Suite struct StaticFilesTests {
    private func server(_ folder: PublicFolder) throws -> TestServer {
        let files = StaticFiles(root: folder.root)
        return try TestServer.start { router in
            router.get("/static/*path", files.handler)
        }
    }

    @Test func servesFilesWithTypesAndValidators() throws {
        let folder = try PublicFolder()
        defer { folder.remove() }
        let test = try server(folder)
        defer { test.stop() }
        let css = try test.request(get("/static/css/site.css"))
        #expect(css.status == 200)
        #expect(css.text == "body { color: red; }\n")
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(css.header("Cache-Control") == "no-cache")
        #expect(css.header("Last-Modified") != nil)
        let etag = try #require(css.header("ETag"))
        let revalidated = try test.request(get("/static/css/site.css", headers: "If-None-Match: \(etag)\r\n"))
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)
        #expect(revalidated.header("ETag") == etag)
        let since = try test.request(get("/static/css/site.css", headers: "If-Modified-Since: \(css.header("Last-Modified")!)\r\n"))
        #expect(since.status == 304)
        let changed = try test.request(get("/static/css/site.css", headers: "If-None-Match: \"other\"\r\n"))
        #expect(changed.status == 200)
        #expect(try test.request(get("/static/docs/")).text == "<h1>docs</h1>")
        let head = try test.client()
        try head.send("HEAD /static/digits.txt HTTP/1.1\r\nHost: t\r\n\r\n")
        let headResponse = try head.readResponse(head: true)
        #expect(headResponse.header("Content-Length") == "20")
    }

    @Test func servesRanges() throws {
        let folder = try PublicFolder()
        defer { folder.remove() }
        let test = try server(folder)
        defer { test.stop() }
        let middle = try test.request(get("/static/digits.txt", headers: "Range: bytes=2-5\r\n"))
        #expect(middle.status == 206)
        #expect(middle.text == "2345")
        #expect(middle.header("Content-Range") == "bytes 2-5/20")
        let suffix = try test.request(get("/static/digits.txt", headers: "Range: bytes=-3\r\n"))
        #expect(suffix.text == "hij")
        let open = try test.request(get("/static/digits.txt", headers: "Range: bytes=18-\r\n"))
        #expect(open.text == "ij")
        let bad = try test.request(get("/static/digits.txt", headers: "Range: bytes=50-60\r\n"))
        #expect(bad.status == 416)
        #expect(bad.header("Content-Range") == "bytes */20")
        let stale = try test.request(get("/static/digits.txt", headers: "Range: bytes=0-1\r\nIf-Range: \"old\"\r\n"))
        #expect(stale.status == 200)
        #expect(stale.body.count == 20)
    }

    @Test func gzipsTextFiles() throws {
        let folder = try PublicFolder()
        defer { folder.remove() }
        let test = try server(folder)
        defer { test.stop() }
        let response = try test.request(get("/static/app.js", headers: "Accept-Encoding: gzip\r\n"))
        #expect(response.header("Content-Encoding") == "gzip")
        #expect(Gzip.decompress(response.body) == Array(String(repeating: "console.log('cumulus');\n", count: 200).utf8))
    }

    @Test(arguments: [
        "/static/../secret.txt",
        "/static/%2e%2e/secret.txt",
        "/static/%2E%2E/secret.txt",
        "/static/css/..%2f..%2fsecret.txt",
        "/static/..%2fsecret.txt",
        "/static/%2e%2e%5csecret.txt",
        "/static/css/%2e%2e/%2e%2e/secret.txt",
        "/static/digits.txt%00.css",
        "/static/escape.txt",
        "/static/outside/secret.txt",
        "/static/.env",
        "/static/nope.txt",
    ])
    func refusesPathsOutsideTheRoot(path: String) throws {
        let folder = try PublicFolder()
        defer { folder.remove() }
        let test = try server(folder)
        defer { test.stop() }
        let response = try test.request(get(path))
        #expect(response.status == 404 || response.status == 400)
        #expect(!response.text.contains("top secret"))
        #expect(!response.text.contains("hidden"))
    }

    @Test func followsSymlinksThatStayInside() throws {
        let folder = try PublicFolder()
        defer { folder.remove() }
        let test = try server(folder)
        defer { test.stop() }
        #expect(try test.request(get("/static/alias.txt")).text == "0123456789abcdefghij")
    }
}
