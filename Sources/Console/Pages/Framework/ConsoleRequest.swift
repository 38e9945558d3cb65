import CloudStore
import HTTPServer

/// A request to a console page from a signed-in operator: who, the session's form token, and
/// the form a post carries.
struct ConsoleRequest {
    /// The request.
    let http: HTTPRequest
    /// Who is acting.
    let identity: OperatorIdentity
    /// The token the page's forms repeat; `nil` for a management token.
    let csrfToken: String?
    /// The posted form; empty for a GET.
    let form: FormData
    /// The notice the previous page left (after a redirect), shown once.
    let notice: Notice?

    /// A path parameter of the route.
    func path(_ name: String) -> String { http.pathParameters[name] ?? "" }

    /// A query parameter, `nil` when absent or empty.
    func query(_ name: String) -> String? {
        guard let value = http.queryParameter(name), !value.isEmpty else { return nil }
        return value
    }

    /// A form field, `nil` when absent.
    func field(_ name: String) -> String? { form[name] }

    /// Every value of a repeated form field (checkboxes), in order.
    func fields(_ name: String) -> [String] { form.fields.filter { $0.name == name }.map(\.value) }

    /// Whether a destructive post was confirmed on its confirmation page.
    var isConfirmed: Bool { form["confirmed"] == "yes" }
}
