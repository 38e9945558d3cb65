import CloudStore
import Console
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Where a console form names two wrong things, the page reports the one it reported before its
/// inputs were typed: a missing container before a malformed database.
@Suite struct ConsoleErrorOrderTests {
    @Test func deletingASubscriptionInAMissingContainerNamesTheContainer() throws {
        let server = try ConsoleTestServer()
        try server.store.addOperator("root", password: "operator password")
        let signedIn = try server.store.signInOperator("root", password: "operator password", clientAddress: nil)
        let headers = [("Cookie", "cumulus_console=\(signedIn.secret)"), ("Sec-Fetch-Site", "same-origin")]
        func notice(container: String, database: String) throws -> String {
            let response = try server.post(
                "/console/containers/\(container)/development/public/sync/subscriptions/delete",
                form: [
                    ("subscriptionID", "every-note"), ("subscriber", "alice"), ("subscriptionDatabase", database),
                    ("confirmed", "yes"), ("csrfToken", signedIn.session.csrfToken),
                ],
                headers: headers)
            #expect(response.status == 303)
            // The notice travels to the next page in a sealed cookie.
            let location = try #require(response.header("Location"))
            let notice = try #require(response.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            return try server.get(location, headers: [("Cookie", "cumulus_console=\(signedIn.secret); " + notice)]).text
        }
        let both = try notice(container: "iCloud.com.example.Missing", database: "bogus")
        #expect(both.contains("Container iCloud.com.example.Missing does not exist"))
        #expect(!both.contains("bogus"))
        let databaseOnly = try notice(container: server.container.rawValue, database: "bogus")
        #expect(databaseOnly.contains("bogus"))
    }
}
