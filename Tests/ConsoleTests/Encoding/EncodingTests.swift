import Foundation
import HTTPServer
import Testing

@testable import Console

@Suite struct EncodingTests {
    @Test func formBodiesDecodePlusAndPercentEscapes() throws {
        let form = try FormData(body: Array("a=1+2&b=%2B%26%3D&c=&d&%E2%9C%93=%C3%BC&a=second&e=x=y".utf8))
        #expect(form["a"] == "1 2")
        #expect(form["b"] == "+&=")
        #expect(form["c"] == "")
        #expect(form["d"] == "")
        #expect(form["✓"] == "ü")
        #expect(form["e"] == "x=y")
        #expect(form["missing"] == nil)
        #expect(form.fields.count == 7)
        for bad in ["a=%", "a=%2", "a=%G1", "%ZZ=1", "a=%FF"] {
            #expect(throws: ConsoleError.self, "\(bad)") { try FormData(body: Array(bad.utf8)) }
        }
    }

    @Test func formsMustBeDeclaredAsForms() throws {
        let body = Array("a=1".utf8)
        let plain = HTTPRequest(method: .post, target: "/signin", headers: ["Content-Type": "text/plain"], body: body)
        #expect(throws: ConsoleError.self) { try FormData(request: plain) }
        let form = HTTPRequest(
            method: .post, target: "/signin", headers: ["Content-Type": "Application/X-WWW-Form-Urlencoded ; charset=utf-8"], body: body)
        #expect(try FormData(request: form)["a"] == "1")
    }

    @Test func componentsKeepOnlyUnreservedCharacters() {
        #expect(PercentEncoding.encodeComponent("1__32__ab+c/d==") == "1__32__ab%2Bc%2Fd%3D%3D")
        #expect(PercentEncoding.encodeComponent("https://a.example:8443") == "https%3A%2F%2Fa.example%3A8443")
        #expect(PercentEncoding.encodeComponent("a b~ü") == "a%20b~%C3%BC")
    }

    @Test func scriptLiteralsCannotLeaveTheScript() {
        let literal = ScriptLiteral.string("</script><!-- \"x\" \\ 'y' & \u{2028}\u{2029}\n\u{1}")
        #expect(literal == #""\u003c/script\u003e\u003c!-- \"x\" \\ \u0027y\u0027 \u0026 \u2028\u2029\n\u0001""#)
        #expect(!literal.contains("<") && !literal.contains(">"))
        // Still the same string to a JSON reader.
        let decoded = try? JSONSerialization.jsonObject(with: Data(literal.utf8), options: [.fragmentsAllowed]) as? String
        #expect(decoded == "</script><!-- \"x\" \\ 'y' & \u{2028}\u{2029}\n\u{1}")
    }

    @Test func callbacksGetTheTokenInTheirQuery() {
        let token = "1__32__a+b/c="
        let cases = [
            ("https://app.example.com/done", "https://app.example.com/done?ckWebAuthToken=1__32__a%2Bb%2Fc%3D"),
            ("https://app.example.com/done?state=1", "https://app.example.com/done?state=1&ckWebAuthToken=1__32__a%2Bb%2Fc%3D"),
            ("https://app.example.com/done?", "https://app.example.com/done?ckWebAuthToken=1__32__a%2Bb%2Fc%3D"),
            ("https://app.example.com/#/after", "https://app.example.com/?ckWebAuthToken=1__32__a%2Bb%2Fc%3D#/after"),
            (
                "cloudkit-icloud.com.example.notes://callback",
                "cloudkit-icloud.com.example.notes://callback?ckWebAuthToken=1__32__a%2Bb%2Fc%3D"
            ),
        ]
        for (callback, expected) in cases {
            #expect(CallbackURL.appending(webAuthToken: token, to: callback) == expected)
        }
    }

    @Test func signInURLsEncodeTheirParameters() {
        let token = String(repeating: "ab", count: 32)
        #expect(
            Console.signInURL(base: "https://cloud.example.com/", apiToken: token, origin: nil)
                == "https://cloud.example.com/signin?ckAPIToken=\(token)")
        #expect(
            Console.signInURL(base: "https://cloud.example.com", apiToken: token, origin: "https://app.example.com")
                == "https://cloud.example.com/signin?ckAPIToken=\(token)&origin=https%3A%2F%2Fapp.example.com")
        #expect(Console.signInURL(base: "", apiToken: token, origin: "") == "/signin?ckAPIToken=\(token)")
    }

    @Test func theBaseURLComesFromTheSettingAnAllowedHostOrTheListenAddress() {
        var configuration = ConsoleConfiguration(version: "1")
        configuration.allowedHosts = ["cloud.test:8080"]
        let request = { (host: String?) in
            var request = HTTPRequest(method: .get, target: "/", headers: host.map { ["Host": $0] } ?? [:])
            request.listenAddress = ListenAddress(host: "127.0.0.1", port: 8080)
            return request
        }
        #expect(configuration.baseURL(for: request("cloud.test:8080")) == "http://cloud.test:8080")
        #expect(configuration.baseURL(for: request("[::1]:8080")) == "http://[::1]:8080")
        // An unknown Host, plain or not, never reaches a link: the listen address does.
        #expect(configuration.baseURL(for: request("evil.example")) == "http://127.0.0.1:8080")
        #expect(configuration.baseURL(for: request("evil.example/\"><script>")) == "http://127.0.0.1:8080")
        #expect(configuration.baseURL(for: request(nil)) == "http://127.0.0.1:8080")
        #expect(
            configuration.baseURL(for: HTTPRequest(method: .get, target: "/", headers: ["Host": "evil.example"])) == "",
            "made in process: relative links")
        configuration.publicURL = "https://cloud.example.com/"
        #expect(configuration.baseURL(for: request("cloud.test")) == "https://cloud.example.com")
    }

    @Test func formActionSourcesAreSafeOrAbsent() {
        #expect(ContentSecurityPolicy.source(for: "https://app.example.com/done?x=1") == "https://app.example.com")
        #expect(ContentSecurityPolicy.source(for: "http://127.0.0.1:8000/cb") == "http://127.0.0.1:8000")
        #expect(ContentSecurityPolicy.source(for: "cloudkit-icloud.com.example.notes://callback") == "cloudkit-icloud.com.example.notes:")
        #expect(ContentSecurityPolicy.source(for: "not a url") == nil)
        let policy = ContentSecurityPolicy(scriptNonce: "abc", formActionSources: ["https://a.example"])
        #expect(policy.headerValue.contains("script-src 'nonce-abc';"))
        #expect(policy.headerValue.contains("form-action 'self' https://a.example;"))
    }

    @Test func cookiesAreFoundByName() {
        let request = HTTPRequest(method: .get, target: "/", headers: ["Cookie": "a=1; cumulus_signin_csrf=xyz ;b=2"])
        #expect(Cookies.value(named: "cumulus_signin_csrf", in: request) == "xyz")
        #expect(Cookies.value(named: "b", in: request) == "2")
        #expect(Cookies.value(named: "c", in: request) == nil)
    }
}
