import Foundation
import HTTPServer

/// The fields of an `application/x-www-form-urlencoded` request body, as browsers send forms.
struct FormData {
    /// The fields in the order sent, decoded.
    let fields: [(name: String, value: String)]

    /// Parses `body`.
    /// - Throws: ``ConsoleError/badRequest(_:)`` for a malformed escape or bytes that are not UTF-8.
    init(body: [UInt8]) throws(ConsoleError) {
        var fields: [(name: String, value: String)] = []
        let text = String(decoding: body, as: UTF8.self)
        for (name, value) in PercentDecoding.encodedPairs(Substring(text)) {
            guard let decodedName = PercentDecoding.decode(name, plusAsSpace: true, validatingUTF8: true),
                let decodedValue = PercentDecoding.decode(value, plusAsSpace: true, validatingUTF8: true)
            else {
                throw .badRequest("The form could not be read: it has a malformed %-escape or text that is not UTF-8.")
            }
            fields.append((decodedName, decodedValue))
        }
        self.fields = fields
    }

    /// Parses the body of a form post.
    /// - Throws: ``ConsoleError/unsupportedMediaType(_:)`` when the body is not declared as a form,
    ///   ``ConsoleError/badRequest(_:)`` when it cannot be decoded.
    init(request: HTTPRequest) throws(ConsoleError) {
        let mediaType = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw .unsupportedMediaType("The form must be sent as application/x-www-form-urlencoded, as browsers send it.")
        }
        try self.init(body: request.body)
    }

    /// The first value of the field `name`, or `nil`.
    subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }
}
