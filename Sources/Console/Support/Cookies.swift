import HTTPServer

/// Reading the `Cookie` request header.
enum Cookies {
    /// The value of the cookie `name` the request carries, or `nil`. When a name appears more than
    /// once the first wins, as browsers send the most specific path first.
    static func value(named name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                var value = trimmed[trimmed.index(after: equals)...]
                while value.last == " " || value.last == "\t" { value = value.dropLast() }
                return String(value)
            }
        }
        return nil
    }
}
