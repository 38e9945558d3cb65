import Foundation
import HTTPServer

/// The fields of a form post, as browsers send forms: `application/x-www-form-urlencoded`, or
/// `multipart/form-data` when the form uploads a file.
struct FormData {
    /// The fields in the order sent, decoded.
    let fields: [(name: String, value: String)]
    /// The files uploaded, in the order sent.
    let files: [MultipartForm.File]

    /// An empty form.
    init() {
        self.init(fields: [], files: [])
    }

    private init(fields: [(name: String, value: String)], files: [MultipartForm.File]) {
        self.fields = fields
        self.files = files
    }

    /// Parses an `application/x-www-form-urlencoded` body.
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
        self.init(fields: fields, files: [])
    }

    /// Parses the body of a form post.
    /// - Parameter multipartAllowed: Whether `multipart/form-data` (file uploads) is accepted too.
    /// - Throws: ``ConsoleError/unsupportedMediaType(_:)`` when the body is not declared as a form,
    ///   ``ConsoleError/badRequest(_:)`` when it cannot be decoded.
    init(request: HTTPRequest, multipartAllowed: Bool = false) throws(ConsoleError) {
        let contentType = request.headers["Content-Type"] ?? ""
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if multipartAllowed, mediaType == "multipart/form-data" {
            let form = try MultipartForm(body: request.body, contentType: contentType)
            self.init(fields: form.fields, files: form.files)
            return
        }
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw .unsupportedMediaType("The form must be sent as application/x-www-form-urlencoded, as browsers send it.")
        }
        try self.init(body: request.body)
    }

    /// The first value of the field `name`, or `nil`.
    subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first file uploaded as `name` with any content, or `nil`.
    func file(_ name: String) -> MultipartForm.File? {
        files.first { $0.name == name && !$0.bytes.isEmpty }
    }
}
