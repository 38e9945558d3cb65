/// The pages Cumulus serves beside the API, rendered on the server from `Templates/`: the start
/// page, the web sign-in flow of CloudKit Web Services, and the admin console with its
/// management API (`/admin/v1`).
///
/// Mount the pages once, before the server starts:
///
/// ```swift
/// var router = Router()
/// try Console.mount(on: &router, store: store, configuration: ConsoleConfiguration(version: "0.1.0"))
/// ```
///
/// The API layer builds the `redirectURL` of `AUTHENTICATION_REQUIRED` answers with
/// ``Console/signInURL(base:apiToken:origin:)`` so that the format of sign-in links lives here.
public enum Console {}
