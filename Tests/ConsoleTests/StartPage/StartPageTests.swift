import CloudStore
import Foundation
import Testing

@Suite struct StartPageTests {
    @Test func listsContainersEndpointsAndFirstCommands() throws {
        let server = try ConsoleTestServer()
        try server.store.createContainer(try ContainerIdentifier("iCloud.com.example.Notes"))
        let response = try server.get("/", headers: [("Host", "cloud.test:8080")])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let page = response.text
        // Both containers, sorted, each with an example request on this server.
        #expect(page.contains("<code>iCloud.com.example.Notes</code>"))
        #expect(page.contains("<code>iCloud.com.example.Tests</code>"))
        #expect(page.contains("POST http://cloud.test:8080/database/1/iCloud.com.example.Tests/development/public/records/query"))
        // Where things live, on the host the browser used.
        #expect(page.contains("http://cloud.test:8080/database/1/{container}/{environment}/{database}/…"))
        #expect(page.contains("http://cloud.test:8080/healthz"))
        #expect(page.contains("http://cloud.test:8080/openapi.json"))
        #expect(page.contains("http://cloud.test:8080/signin?ckAPIToken=…"))
        // The first commands, naming the first container.
        for command in [
            "cumulus containers create iCloud.com.example.Notes",
            "cumulus tokens create --container iCloud.com.example.Notes",
            "cumulus users add --container iCloud.com.example.Notes NAME",
            "cumulus keys add --container iCloud.com.example.Notes --public-key FILE",
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

    @Test func withoutContainersSaysHowToCreateOne() throws {
        let server = try ConsoleTestServer(createContainer: false)
        let page = try server.get("/").text
        #expect(page.contains("No containers yet"))
        #expect(page.contains("<code>cumulus containers create iCloud.com.example.Notes</code>"))
    }

    @Test func publicURLWinsOverTheHostHeader() throws {
        let server = try ConsoleTestServer(publicURL: "https://cloud.example.com/")
        let page = try server.get("/", headers: [("Host", "internal:9000")]).text
        #expect(page.contains("https://cloud.example.com/database/1/{container}"))
        #expect(!page.contains("internal:9000"))
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
