import CloudStore
import Foundation
import Testing

@Suite struct StartPageTests {
    @Test func namesNoContainerButEndpointsConsoleAndFirstCommands() throws {
        let server = try ConsoleTestServer(allowedHosts: ["cloud.test:8080"])
        try server.store.createContainer(try ContainerIdentifier("iCloud.com.example.Private"))
        let response = try server.get("/", headers: [("Host", "cloud.test:8080")])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let page = response.text
        // What a server holds is for its operators: an anonymous visitor sees no container.
        #expect(!page.contains("iCloud.com.example.Private"))
        #expect(!page.contains("iCloud.com.example.Tests"))
        // Where things live, on the host the browser used, which the server was told is its own.
        #expect(page.contains("http://cloud.test:8080/database/1/{container}/{environment}/{database}/…"))
        #expect(page.contains("http://cloud.test:8080/healthz"))
        #expect(page.contains("http://cloud.test:8080/openapi.json"))
        #expect(page.contains("http://cloud.test:8080/signin?ckAPIToken=…"))
        #expect(page.contains("<a href=\"/console/\">console</a>"))
        #expect(page.contains("<code>http://cloud.test:8080/admin/v1/</code>"))
        // The first commands, the operator first, naming the example container.
        for command in [
            "cumulus operators add NAME",
            "cumulus containers create iCloud.com.example.Notes",
            "cumulus tokens create --container iCloud.com.example.Notes",
            "cumulus users add --container iCloud.com.example.Notes NAME",
        ] {
            #expect(page.contains("<code>\(command)</code>"), "missing \(command)")
        }
        // The shared layout: header, footer with the version, the stylesheet from Public/.
        #expect(page.contains("<span>Cumulus</span>"))
        #expect(page.contains("Cumulus \(ConsoleTestServer.version)"))
        #expect(page.contains("href=\"/static/css/console.css\""))
        #expect(!page.contains("<script"))
    }

    @Test func carriesSecurityHeaders() throws {
        let server = try ConsoleTestServer()
        let response = try server.get("/")
        let policy = try #require(response.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'self'"))
        #expect(policy.contains("script-src 'none'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(response.header("X-Frame-Options") == "DENY")
        #expect(response.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func publicURLWinsOverTheHostHeader() throws {
        let server = try ConsoleTestServer(publicURL: "https://cloud.example.com/")
        let page = try server.get("/", headers: [("Host", "internal:9000")]).text
        #expect(page.contains("https://cloud.example.com/database/1/{container}"))
        #expect(!page.contains("internal:9000"))
    }

    @Test func aForgedHostGetsLinksOnTheListenAddress() throws {
        let server = try ConsoleTestServer(allowedHosts: ["cloud.test:8080"])
        let page = try server.get("/", headers: [("Host", "evil.example")]).text
        #expect(page.contains("http://127.0.0.1:\(server.port)/signin?ckAPIToken=…"))
        #expect(page.contains("http://127.0.0.1:\(server.port)/database/1/{container}"))
        #expect(!page.contains("evil.example"))
        let local = try server.get("/", headers: [("Host", "localhost:\(server.port)")]).text
        #expect(local.contains("http://localhost:\(server.port)/signin?ckAPIToken=…"), "the listen address's loopback name as sent")
    }

    @Test func unknownPathsGetAPageForBrowsersAndJSONForOthers() throws {
        let server = try ConsoleTestServer()
        let browser = try server.get("/no/such/page", headers: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")])
        #expect(browser.status == 404)
        #expect(browser.header("Content-Type") == "text/html; charset=utf-8")
        #expect(browser.text.contains("There is no page at /no/such/page on this server."))
        let client = try server.get("/no/such/page", headers: [("Accept", "application/json")])
        #expect(client.status == 404)
        #expect(client.header("Content-Type") == "application/json; charset=utf-8")
    }
}
