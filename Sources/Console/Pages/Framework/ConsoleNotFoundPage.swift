import CloudStore
import HTTPServer

/// The console's answer to a path under `/console` that no page has: a 404 inside the console
/// frame, so that the operator keeps its navigation (``ConsolePages`` renders every refusal of
/// a console page there).
///
/// `GET /console/*`: whatever no other console route matches.
struct ConsoleNotFoundPage: Sendable {
    let console: ConsolePages

    /// The templates these pages render.
    static let templates = ["console.error"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        [
            .get("/*rest") { request in
                throw ConsoleError.notFound("There is no console page at \(request.http.path).")
            }
        ]
    }
}

extension ConsoleNotFoundPage: ConsolePageSet { static let area = OperatorArea.containers }
