/// The fields the sign-in form posts: what the user typed, and the hidden fields that carry the
/// app's API token, the opener's origin and the form token from the sign-in page.
struct SignInForm {
    /// `ckAPIToken`, from the link that opened sign-in.
    var apiToken: String?
    /// `origin`, from the link, when it named the opener.
    var origin: String?
    /// The form token (see ``CSRFToken``).
    var csrfToken: String?
    /// The user's name.
    var name: String
    /// The user's password.
    var password: String
    /// Whether "Keep me signed in" was ticked: the session's tokens then last two weeks.
    var keepSignedIn: Bool

    /// Reads the fields of a posted form; absent text fields read as empty.
    init(_ form: FormData) {
        apiToken = form["ckAPIToken"]
        origin = form["origin"]
        csrfToken = form[CSRFToken.fieldName]
        name = form["name"] ?? ""
        password = form["password"] ?? ""
        // A checkbox is sent only when ticked; its value does not matter.
        keepSignedIn = form["keepSignedIn"] != nil
    }
}
