import Testing
import WebServices

@Suite("Signed request parts")
struct SignedRequestPartsTests {
    private static let target = "/database/1/iCloud.com.example/development/public/records/query?ckjsVersion=2.6.4"

    private func extract(_ headers: [String: String]) throws(ServerToServerAuthError) -> SignedRequestParts? {
        try SignedRequestParts.extract(header: { headers[$0] }, body: [1, 2], requestTarget: Self.target)
    }

    @Test("a request without signing headers is not a server-to-server request")
    func unsigned() throws {
        #expect(try extract([:]) == nil)
        #expect(try extract(["Content-Type": "text/plain"]) == nil)
        #expect(try extract([ServerToServerHeader.keyID: "  "]) == nil)
    }

    @Test("collects the three headers, trimmed")
    func complete() throws {
        let parts = try extract([
            ServerToServerHeader.keyID: " abc ",
            ServerToServerHeader.date: "2016-01-25T22:15:43Z\t",
            ServerToServerHeader.signature: "MEUC",
        ])
        #expect(
            parts
                == SignedRequestParts(
                    keyID: "abc", dateHeader: "2016-01-25T22:15:43Z", signatureHeader: "MEUC", body: [1, 2], requestTarget: Self.target))
    }

    @Test(
        "names the first missing header",
        arguments: [
            ([ServerToServerHeader.date: "d", ServerToServerHeader.signature: "s"], ServerToServerHeader.keyID),
            ([ServerToServerHeader.keyID: "k", ServerToServerHeader.signature: "s"], ServerToServerHeader.date),
            ([ServerToServerHeader.keyID: "k", ServerToServerHeader.date: "d"], ServerToServerHeader.signature),
            (
                [ServerToServerHeader.keyID: "k", ServerToServerHeader.date: "", ServerToServerHeader.signature: "s"],
                ServerToServerHeader.date
            ),
            ([ServerToServerHeader.signature: "s"], ServerToServerHeader.keyID),
        ])
    func missing(headers: [String: String], missing: String) {
        #expect(throws: ServerToServerAuthError.missingHeader(missing)) { try extract(headers) }
    }

    @Test("subpath candidates: target as sent, then the bare path")
    func candidates() {
        func candidates(_ target: String) -> [String] {
            SignedRequestParts(keyID: "", dateHeader: "", signatureHeader: "", body: [], requestTarget: target)
                .signedSubpathCandidates
        }
        #expect(candidates("/a/b?x=1&y=2") == ["/a/b?x=1&y=2", "/a/b"])
        #expect(candidates("/a/b") == ["/a/b"])
        #expect(candidates("/a/b?") == ["/a/b?", "/a/b"])
        #expect(candidates("https://host:443/a/b?x=1") == ["/a/b?x=1", "/a/b"])
        #expect(candidates("http://host") == ["/"])
        #expect(candidates("/a?next=https://other/x") == ["/a?next=https://other/x", "/a"])
    }
}
