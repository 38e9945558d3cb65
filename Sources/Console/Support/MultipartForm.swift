/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file input:
/// text fields and files, each a part with a `Content-Disposition: form-data; name=…` header.
struct MultipartForm {
    /// An uploaded file.
    struct File {
        /// The form field's name.
        let name: String
        /// The file name the browser gave, without any folders.
        let filename: String
        /// The content.
        let bytes: [UInt8]
    }

    /// The text fields, in order.
    private(set) var fields: [(name: String, value: String)] = []
    /// The files, in order.
    private(set) var files: [File] = []

    /// At most this many parts are read: forms have a handful.
    static let maximumParts = 1_000

    /// Parses `body`.
    /// - Parameter contentType: The request's `Content-Type`, which names the boundary.
    /// - Throws: ``ConsoleError/badRequest(_:)`` when the body is not well-formed multipart data.
    init(body: [UInt8], contentType: String) throws(ConsoleError) {
        guard let boundary = Self.boundary(in: contentType) else {
            throw .badRequest("The form upload names no multipart boundary.")
        }
        let delimiter = Array(("--" + boundary).utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else {
            throw .badRequest("The form upload is not multipart data: its boundary never appears.")
        }
        var parts = 0
        while true {
            position += delimiter.count
            // `--` after a delimiter closes the body.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { break }
            guard body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A else {
                throw .badRequest("The form upload is cut short or malformed.")
            }
            position += 2
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: position) else {
                throw .badRequest("A part of the form upload has no end to its headers.")
            }
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = Self.find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else {
                throw .badRequest("The form upload is cut short: a part has no closing boundary.")
            }
            parts += 1
            guard parts <= Self.maximumParts else { throw .badRequest("The form upload has too many parts.") }
            let content = Array(body[contentStart..<next])
            let disposition = Self.disposition(headers)
            if let name = disposition["name"] {
                if let filename = disposition["filename"] {
                    let base = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
                    files.append(File(name: name, filename: base, bytes: content))
                } else {
                    guard let value = String(validating: content, as: UTF8.self) else {
                        throw .badRequest("The form field '\(name)' is not UTF-8 text.")
                    }
                    fields.append((name, value))
                }
            }
            position = next + 2
        }
    }

    private static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.trimmingCharacters(in: .whitespaces)
            guard pair.lowercased().hasPrefix("boundary=") else { continue }
            var value = pair.dropFirst("boundary=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.isEmpty || value.count > 70 ? nil : String(value)
        }
        return nil
    }

    /// The parameters of the part's `Content-Disposition` header (`name`, `filename`).
    private static func disposition(_ headers: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in headers.split(separator: "\r\n") {
            guard line.lowercased().hasPrefix("content-disposition:") else { continue }
            var rest = Substring(line.dropFirst("content-disposition:".count))
            while let equals = rest.firstIndex(of: "=") {
                let key = rest[..<equals].split(separator: ";").last?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                rest = rest[rest.index(after: equals)...]
                var value = ""
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    var escaped = false
                    while let character = rest.first {
                        rest = rest.dropFirst()
                        if escaped { value.append(character); escaped = false; continue }
                        if character == "\\" { escaped = true; continue }
                        if character == "\"" { break }
                        value.append(character)
                    }
                } else {
                    let end = rest.firstIndex(of: ";") ?? rest.endIndex
                    value = rest[..<end].trimmingCharacters(in: .whitespaces)
                    rest = rest[end...]
                }
                result[key] = value
            }
        }
        return result
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
