import HTTPServer

/// What a console page handler answers: a page rendered in the console's frame, a redirect
/// (after a post, with a notice for the next page), or a file.
enum ConsoleAnswer {
    /// Render this page inside the console frame.
    case page(Page)
    /// Send the browser to a path of the console, leaving a notice for the page it lands on.
    case redirect(String, Notice?)
    /// Answer with a download or another prepared response.
    case response(HTTPResponse)
}
