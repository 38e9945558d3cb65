import Glibc
import HTTPServer
import TestSupport
import Testing

/// How the client of a request is decided: `--trusted-proxies` read strictly, the rightmost
/// untrusted `X-Forwarded-For` address from a trusted peer, forged headers from anyone else
/// ignored, and trusted proxies spared the per-client connection cap.
@Suite struct TrustedProxiesTests {
    // MARK: - Parsing

    @Test func blocksOfBothFamiliesAreRead() throws {
        let proxies = try TrustedProxies(parsing: " 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::1/128, 2001:DB8::/32 ")
        #expect(proxies.description == "10.0.0.0/8,192.0.2.7/32,fd00::/8,::1/128,2001:db8::/32")
        #expect(proxies.contains(try #require(IPAddress("10.200.3.4"))))
        #expect(!proxies.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(proxies.contains(try #require(IPAddress("192.0.2.7"))))
        #expect(!proxies.contains(try #require(IPAddress("192.0.2.8"))))
        #expect(proxies.contains(try #require(IPAddress("fd12:3456::1"))))
        #expect(proxies.contains(try #require(IPAddress("::1"))))
        #expect(!proxies.contains(try #require(IPAddress("::2"))))
        #expect(proxies.contains(try #require(IPAddress("2001:db8:ffff::9"))))
        #expect(!proxies.contains(try #require(IPAddress("2001:db9::1"))))
    }

    @Test func anIPv4BlockHoldsThePeersAnIPv6SocketSeesAsMapped() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.0/8")
        #expect(proxies.contains(try #require(IPAddress("::ffff:127.0.0.9"))))
        #expect(try #require(IPAddress("::ffff:127.0.0.9")).description == "127.0.0.9")
        #expect(!proxies.contains(try #require(IPAddress("::127.0.0.9"))))
    }

    @Test func nothingIsTrustedByDefaultOrForAnEmptyText() throws {
        #expect(TrustedProxies().isEmpty)
        #expect(try TrustedProxies(parsing: "").isEmpty)
        #expect(try TrustedProxies(parsing: "  ").isEmpty)
        #expect(!TrustedProxies().contains(try #require(IPAddress("127.0.0.1"))))
    }

    @Test(arguments: [
        ("10.0.0.0/33", "bad prefix length: use /0 to /32"),
        ("fd00::/129", "bad prefix length: use /0 to /128"),
        ("10.0.0.0/", "bad prefix length"),
        ("10.0.0.0/+8", "bad prefix length"),
        ("10.0.0.0/8/8", "bad prefix length"),
        ("10.0.0.1/8", "has bits set past its /8 prefix; the block starts at 10.0.0.0/8"),
        ("fd00::1/8", "the block starts at fd00::/8"),
        ("10.0.0", "is not an IPv4 or IPv6 address"),
        ("localhost", "is not an IPv4 or IPv6 address"),
        ("fe80::1%eth0", "is not an IPv4 or IPv6 address"),
        ("[::1]/128", "is not an IPv4 or IPv6 address"),
        ("10.0.0.0/8,,fd00::/8", "has an empty entry"),
        ("10.0.0.0/8,", "has an empty entry"),
    ])
    func aBadBlockIsRefusedSayingWhy(_ text: String, _ reason: String) {
        #expect {
            _ = try TrustedProxies(parsing: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    // MARK: - The rightmost untrusted address

    private static let proxies = try! TrustedProxies(parsing: "127.0.0.1/32,10.0.0.0/8,fd00::/8")

    private func client(_ headers: [(String, String)]) -> ClientAddress {
        Self.proxies.client(
            ofRequestFrom: "127.0.0.1:40000", peerHost: "127.0.0.1",
            headers: HTTPHeaders(headers.map { HTTPHeaders.Field(name: $0.0, value: $0.1) }))
    }

    @Test func theClientIsTheRightmostAddressThatIsNotAProxy() {
        // A client-sent entry on the left, the real client, then two proxies of ours.
        let found = client([("X-Forwarded-For", "198.51.100.1, 203.0.113.7, 10.1.1.1,10.2.2.2")])
        #expect(found.host == "203.0.113.7")
        #expect(found.proxy == "127.0.0.1:40000")
        #expect(!found.usedTLS)
    }

    @Test func ipv6ClientsAreNamedInTheirUsualForm() {
        #expect(client([("X-Forwarded-For", "2001:DB8:0:0::7")]).host == "2001:db8::7")
        #expect(client([("X-Forwarded-For", "[2001:db8::7]:4711, fd00::3")]).host == "2001:db8::7")
        #expect(client([("X-Forwarded-For", "203.0.113.7:4711")]).host == "203.0.113.7")
        #expect(client([("X-Forwarded-For", "::ffff:203.0.113.7")]).host == "203.0.113.7")
    }

    @Test func severalHeadersReadAsOneListInOrder() {
        let found = client([
            ("X-Forwarded-For", "198.51.100.1"), ("Accept", "*/*"), ("x-forwarded-for", "203.0.113.7, 10.0.0.2"),
            ("X-Forwarded-For", "10.0.0.3"),
        ])
        #expect(found.host == "203.0.113.7")
        // Every address in the last two headers is a proxy: the first header names the client.
        #expect(client([("X-Forwarded-For", "198.51.100.1"), ("X-Forwarded-For", "10.0.0.2, 10.0.0.3")]).host == "198.51.100.1")
    }

    @Test func whenEveryAddressIsAProxyTheLeftmostIsTheClient() {
        #expect(client([("X-Forwarded-For", "10.9.9.9, 10.0.0.2, 127.0.0.1")]).host == "10.9.9.9")
    }

    @Test func withoutTheHeaderTheProxyItselfIsTheClient() {
        #expect(client([("Host", "cloud.example.com")]).host == "127.0.0.1")
        #expect(client([("X-Forwarded-For", "")]).host == "127.0.0.1")
    }

    @Test(arguments: [
        "unknown", "203.0.113.7, garbage", "203.0.113.7,", "_hidden, 10.0.0.2", "203.0.113.7:http", "[2001:db8::7",
        "[203.0.113.7]", "203.0.113.7 10.0.0.2", "2001:db8::7:99999",
    ])
    func aMalformedEntryStopsTheWalkAtTheProxy(_ value: String) {
        // Nothing left of an entry that is not an address is believed: the peer is the client.
        #expect(client([("X-Forwarded-For", value)]).host == "127.0.0.1")
    }

    @Test func anAddressFoundBeforeAMalformedEntryStands() {
        #expect(client([("X-Forwarded-For", "garbage, 203.0.113.7, 10.0.0.2")]).host == "203.0.113.7")
    }

    @Test func theProxySaysWhetherTheClientUsedTLS() {
        #expect(client([("X-Forwarded-Proto", "https")]).usedTLS)
        #expect(client([("X-Forwarded-Proto", "HTTPS"), ("X-Forwarded-For", "203.0.113.7")]).usedTLS)
        #expect(!client([("X-Forwarded-Proto", "http")]).usedTLS)
        // The peer's own word is the rightmost: a client's `https` on the left is not it.
        #expect(!client([("X-Forwarded-Proto", "https, http")]).usedTLS)
        #expect(!client([("X-Forwarded-Proto", "https"), ("X-Forwarded-Proto", "http")]).usedTLS)
        // Found even when the address walk stops at an earlier header.
        #expect(client([("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "203.0.113.7")]).usedTLS)
        #expect(client([("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "garbage")]).usedTLS)
    }

    // MARK: - Through the server

    @Test func aForgedHeaderFromAnUntrustedPeerIsIgnored() throws {
        let test = try TestServer.start(configure: { $0.trustedProxies = try! TrustedProxies(parsing: "10.0.0.0/8") }) { router in
            router.get("/who") { request in .text("\(request.client.host) \(request.client.usedTLS) \(request.client.proxy ?? "-")") }
        }
        defer { test.stop() }
        let answer = try test.request(get("/who", headers: "X-Forwarded-For: 203.0.113.7\r\nX-Forwarded-Proto: https\r\n"))
        #expect(answer.text == "127.0.0.1 false -")
    }

    @Test func aTrustedPeerNamesTheClientAndTheScheme() throws {
        let test = try TestServer.start(configure: { $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1/32") }) { router in
            router.get("/who") { request in .text("\(request.client.host) \(request.client.usedTLS)") }
        }
        defer { test.stop() }
        let answer = try test.request(
            get("/who", headers: "X-Forwarded-For: 198.51.100.1, 203.0.113.7\r\nX-Forwarded-Proto: https\r\n"))
        #expect(answer.text == "203.0.113.7 true")
        // The access line names the client, then the proxy (written after the answer is sent).
        var logged = false
        for _ in 0..<100 where !logged {
            logged = test.log.all.contains { $0.contains("203.0.113.7 via 127.0.0.1:") }
            if !logged { usleep(20_000) }
        }
        #expect(logged)
    }

    @Test func linksFollowTheSchemeATrustedProxyReports() throws {
        let test = try TestServer.start(configure: { $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1/32") }) { router in
            router.get("/base") { request in .text(request.baseURL(publicURL: nil, allowedHosts: ["cloud.example.com"]) ?? "-") }
        }
        defer { test.stop() }
        let tls = "GET /base HTTP/1.1\r\nHost: cloud.example.com\r\nX-Forwarded-Proto: https\r\n\r\n"
        #expect(try test.request(tls).text == "https://cloud.example.com")
        let plain = "GET /base HTTP/1.1\r\nHost: cloud.example.com\r\n\r\n"
        #expect(try test.request(plain).text == "http://cloud.example.com")
    }

    @Test func aTrustedProxyIsNotHeldToThePerClientConnectionCap() throws {
        let test = try TestServer.start(configure: {
            $0.maxConnectionsPerClient = 2
            $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1/32")
        }) { router in
            router.get("/ok") { _ in .text("ok") }
        }
        defer { test.stop() }
        var held: [RawClient] = []
        defer { for client in held { client.close() } }
        for index in 0..<8 {
            let client = try test.client()
            try client.send(get("/ok", headers: "X-Forwarded-For: 203.0.113.7\r\n"))
            #expect(try client.readResponse().status == 200, "connection \(index)")
            held.append(client)
        }
        #expect(!test.log.all.contains { $0.contains("connection refused") })
    }
}
