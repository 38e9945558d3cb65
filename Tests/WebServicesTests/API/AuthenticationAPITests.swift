import CloudStore
import Crypto
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

@Suite struct AuthenticationAPITests {
    @Test func apiTokensMustExistAndMatchContainerAndEnvironment() throws {
        let server = try APITestServer()
        let body = #"{"records":[{"recordName":"x"}]}"#
        let none = try server.send("POST", server.path("public", "records/lookup"), body: body)
        #expect(none.status == 400)
        #expect(try none.json()["reason"]?.stringValue?.contains("ckAPIToken") == true)

        let unknown = try server.send(
            "POST", server.path("public", "records/lookup") + "?ckAPIToken=" + String(repeating: "a", count: 64), body: body)
        #expect(unknown.status == 401)
        #expect(try unknown.json()["serverErrorCode"] == "AUTHENTICATION_FAILED")

        let production = try server.send(
            "POST", server.authorized(server.path("public", "records/lookup", environment: "production")), body: body)
        #expect(production.status == 401)
        #expect(try production.json()["reason"]?.stringValue?.contains("is for iCloud.com.example.Notes development") == true)

        let badEnvironment = try server.send(
            "POST", server.authorized(server.path("public", "records/lookup", environment: "staging")), body: body)
        #expect(badEnvironment.status == 400)
        let badContainer = try server.send(
            "POST", "/database/1/com.bad/development/public/records/lookup?ckAPIToken=\(server.apiToken.token)", body: body)
        #expect(badContainer.status == 400)
    }

    /// A request with any one of the signature's fields, under any case, is read as a signed
    /// request and refused for the fields it lacks; one with none is an API token request.
    @Test func anyFieldOfASignatureMakesARequestASignedOne() throws {
        let server = try APITestServer()
        let body = #"{"records":[{"recordName":"x"}]}"#
        for field in ["x-apple-cloudkit-request-keyid", "X-APPLE-CLOUDKIT-REQUEST-ISO8601DATE", "X-Apple-CloudKit-Request-SignatureV1"] {
            let partial = try server.send("POST", server.path("public", "records/lookup"), body: body, headers: [field: "x"])
            #expect(partial.status == 401, "\(field)")
            #expect(try partial.json()["reason"]?.stringValue?.hasPrefix("Missing header X-Apple-CloudKit-Request-") == true, "\(field)")
        }
        let near = try server.send("POST", server.path("public", "records/lookup"), body: body, headers: ["X-Apple-CloudKit-Request": "x"])
        #expect(near.status == 400)
        #expect(try near.json()["reason"]?.stringValue?.contains("ckAPIToken") == true)
    }

    @Test func badWebAuthTokensAreRefusedAndUnencodedPlusSignsTolerated() throws {
        let server = try APITestServer()
        // CloudKit JS recovers from an ended session only through 421 and its redirectURL.
        let forged = try server.post("private", "zones/list", "{}", webAuthToken: "1__32__" + String(repeating: "A", count: 120))
        #expect(forged.status == 421)
        #expect(try forged.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(try forged.json()["redirectURL"]?.stringValue?.contains("/signin?ckAPIToken=\(server.apiToken.token)") == true)
        let token = try server.signIn()
        // A client that forgets to percent-encode sends `+` raw, which arrives as a space.
        let raw = try server.send(
            "POST", server.path("private", "zones/list") + "?ckAPIToken=\(server.apiToken.token)&ckWebAuthToken=\(token)")
        #expect(raw.status == 200, "\(raw.text)")
        let header = try server.send(
            "POST", server.authorized(server.path("private", "zones/list")), headers: ["X-Apple-CloudKit-Web-Auth-Token": token])
        #expect(header.status == 200)
    }

    @Test func revokedAndExpiredSessionsAnswer421WithTheSignInURLAndBadAPITokens401() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        #expect(try server.post("private", "zones/list", "{}", webAuthToken: token).status == 200)
        let user = try #require(try server.store.user(named: server.userName, in: server.container))
        try server.store.signOutEverywhere(user.userRecordName, in: server.container)
        let ended = try server.post("private", "zones/list", "{}", webAuthToken: token)
        #expect(ended.status == 421)
        #expect(try ended.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(try ended.json()["redirectURL"]?.stringValue?.hasPrefix("http://127.0.0.1:\(server.port)/signin?ckAPIToken=") == true)

        let unknown = try server.send(
            "POST", server.path("public", "records/query") + "?ckAPIToken=" + String(repeating: "a", count: 64), body: "{}")
        #expect(unknown.status == 401)
        #expect(try unknown.json()["serverErrorCode"] == "AUTHENTICATION_FAILED")
        try server.store.revokeAPIToken(server.apiToken.token)
        let revoked = try server.post("public", "zones/list", "{}")
        #expect(revoked.status == 401)
    }

    @Test func aResetOfDevelopmentEndsItsSessionsWithAReasonAndASignInURL() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        #expect(try server.post("private", "zones/list", "{}", webAuthToken: token).status == 200)
        try server.store.resetDevelopment(server.container)
        let ended = try server.post("private", "zones/list", "{}", webAuthToken: token)
        #expect(ended.status == 421)
        #expect(try ended.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(try ended.json()["reason"] == "The session ended when its environment was reset; sign in again")
        #expect(try ended.json()["redirectURL"]?.stringValue?.contains("/signin?ckAPIToken=\(server.apiToken.token)") == true)
        #expect(try server.post("private", "zones/list", "{}", webAuthToken: try server.signIn()).status == 200, "signing in again works")
    }

    @Test func aSessionWorksOnlyInTheEnvironmentItWasOpenedFor() throws {
        let server = try APITestServer()
        let production = try server.store.createAPIToken(server.container, .production, name: "production")
        let token = try server.signIn()
        let refused = try server.send(
            "POST",
            server.path("private", "zones/list", environment: "production") + "?ckAPIToken=\(production.token)&ckWebAuthToken="
                + PercentEncoding.encodeComponent(token), body: "{}")
        #expect(refused.status == 421)
        #expect(
            try refused.json()["reason"]
                == "The web auth token was issued for development, not production; sign in with an API token of production")
    }

    @Test func theOlderCloudKitJSNamesAreReadAndWritten() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let target =
            server.path("private", "zones/list")
            + "?ckAPIToken=\(server.apiToken.token)&ckSession=\(PercentEncoding.encodeComponent(token))"
        let response = try server.send("POST", target, body: "{}", headers: ["Origin": "https://app.example.com"])
        #expect(response.status == 200, "\(response.text)")
        let rotated = try #require(response.header("X-Apple-CloudKit-Web-Auth-Token"))
        #expect(response.header("X-Apple-CloudKit-Session") == rotated)
        #expect(response.header("Access-Control-Expose-Headers")?.contains("X-Apple-CloudKit-Session") == true)
        let byHeader = try server.send(
            "POST", server.authorized(server.path("private", "zones/list")), body: "{}",
            headers: ["X-Apple-CloudKit-Session": rotated])
        #expect(byHeader.status == 200)
    }

    /// CloudKit JS 1.2.0 sends `ckSession=null` when no one is signed in: the call is the
    /// world's, as CloudKit answers it, not a refused token; a private database still needs a user.
    @Test func aNullSessionOfTheOlderCloudKitJSIsNoSession() throws {
        let server = try APITestServer()
        let query = "?ckAPIToken=\(server.apiToken.token)&ckSession=null"
        let world = try server.send("POST", server.path("public", "zones/list") + query, body: "{}")
        #expect(world.status == 200, "\(world.text)")
        let refused = try server.send("POST", server.path("private", "zones/list") + query, body: "{}")
        #expect(refused.status == 421, "\(refused.text)")
        #expect(refused.text.contains("AUTHENTICATION_REQUIRED"))
        let forged = try server.send(
            "POST", server.path("public", "zones/list") + "?ckAPIToken=\(server.apiToken.token)&ckSession=nul", body: "{}")
        #expect(forged.status == 421, "a token that is not there is still refused: \(forged.text)")
    }

    @Test func serverToServerRequestsActAsTheKeysAdministrator() throws {
        let server = try APITestServer()
        let privateKey = P256.Signing.PrivateKey()
        let key = try server.store.addServerKey(server.container, .development, publicKeyPEM: privateKey.publicKey.pemRepresentation)
        let signer = ServerToServerSigner(keyID: key.keyID, privateKey: privateKey)
        func signed(_ operation: String, _ json: String, date: Date = Date(), target: String? = nil, tamper: Bool = false) throws
            -> APIResponse
        {
            let path = server.path("public", operation)
            let body = Array(json.utf8)
            let headers = try signer.headers(body: body, requestTarget: target ?? path, date: date)
            let sent = tamper ? Array((json + " ").utf8) : body
            return try HTTPTestClient.send(
                port: server.port, method: "POST", target: path, body: sent,
                headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) }))
        }
        let created = try signed(
            "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"s2s","recordType":"Note","fields":{"v":{"value":1}}}}]}"#)
        #expect(created.status == 200, "\(created.text)")
        #expect(try created.json()["records"]?[0]?["created"]?["userRecordName"]?.stringValue == key.userRecordName)
        #expect(try signed("records/lookup", #"{"records":[{"recordName":"s2s"}]}"#).status == 200)

        let stale = try signed("records/lookup", #"{"records":[{"recordName":"s2s"}]}"#, date: Date().addingTimeInterval(-3_600))
        #expect(stale.status == 401)
        #expect(try stale.json()["serverErrorCode"] == "AUTHENTICATION_FAILED")
        let tampered = try signed("records/lookup", #"{"records":[{"recordName":"s2s"}]}"#, tamper: true)
        #expect(tampered.status == 401)
        let otherPath = try signed("records/lookup", "{}", target: server.path("public", "records/query"))
        #expect(otherPath.status == 401)

        let otherKey = P256.Signing.PrivateKey()
        let wrong = ServerToServerSigner(keyID: key.keyID, privateKey: otherKey)
        let path = server.path("public", "records/lookup")
        let headers = try wrong.headers(body: Array("{}".utf8), requestTarget: path, date: Date())
        let wrongKey = try HTTPTestClient.send(
            port: server.port, method: "POST", target: path, body: Array("{}".utf8),
            headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) }))
        #expect(wrongKey.status == 401)

        // Server-to-server keys reach the public database only.
        let privateHeaders = try signer.headers(body: Array("{}".utf8), requestTarget: server.path("private", "zones/list"), date: Date())
        let privateAttempt = try HTTPTestClient.send(
            port: server.port, method: "POST", target: server.path("private", "zones/list"), body: Array("{}".utf8),
            headers: Dictionary(uniqueKeysWithValues: privateHeaders.map { ($0.name, $0.value) }))
        #expect(privateAttempt.status == 403)

        let mixedHeaders = try signer.headers(body: Array("{}".utf8), requestTarget: server.authorized(path), date: Date())
        let mixed = try HTTPTestClient.send(
            port: server.port, method: "POST", target: server.authorized(path), body: Array("{}".utf8),
            headers: Dictionary(uniqueKeysWithValues: mixedHeaders.map { ($0.name, $0.value) }))
        #expect(mixed.status == 400)
    }

    @Test func corsAllowsTheTokensOriginsOnly() throws {
        let server = try APITestServer()
        let target = server.authorized(server.path("public", "records/query"))
        let preflight = try server.send(
            "OPTIONS", target,
            headers: [
                "Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(preflight.header("Access-Control-Allow-Headers") == "content-type")

        let denied = try server.send(
            "OPTIONS", target, headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"])
        #expect(denied.status == 403)
        #expect(denied.header("Access-Control-Allow-Origin") == nil)

        let actual = try server.send(
            "POST", server.authorized(server.path("public", "records/lookup")), body: #"{"records":[{"recordName":"x"}]}"#,
            headers: ["Origin": "https://app.example.com"])
        #expect(actual.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(actual.header("Access-Control-Expose-Headers")?.contains("X-Apple-CloudKit-Web-Auth-Token") == true)
        let refused = try server.send(
            "POST", server.authorized(server.path("public", "records/lookup")), body: #"{"records":[{"recordName":"x"}]}"#,
            headers: ["Origin": "https://evil.example"])
        #expect(refused.status == 403)
        #expect(try refused.json()["serverErrorCode"] == "ACCESS_DENIED")
    }

    @Test func unknownPathsAndMethodsAnswerInCloudKitsShape() throws {
        let server = try APITestServer()
        let missing = try server.send("POST", server.authorized(server.path("public", "records/frobnicate")), body: "{}")
        #expect(missing.status == 404)
        #expect(try missing.json()["serverErrorCode"] == "NOT_FOUND")
        let wrongMethod = try server.send("DELETE", server.authorized(server.path("public", "records/query")))
        #expect(wrongMethod.status == 405 || wrongMethod.status == 404)
    }
}
