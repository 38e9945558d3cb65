/// A page cut into tags and text the way an HTML tokenizer does it, by Unicode scalar: enough
/// to tell whether a value changed the markup around it (an attribute gained, a tag opened).
struct HTMLTokens: Equatable {
    /// One token of the page.
    enum Token: Equatable, CustomStringConvertible {
        /// A start tag: its name and its attributes in order, values with entities decoded.
        case start(name: String, attributes: [Attribute])
        /// An end tag.
        case end(name: String)
        /// Text between tags, entities decoded.
        case text(String)
        /// The raw text of a `<script>` or `<style>` element, or a comment or doctype.
        case raw(String)

        var description: String {
            switch self {
            case .start(let name, let attributes): "<\(name) \(attributes.map { "\($0.name)=\"\($0.value)\"" }.joined(separator: " "))>"
            case .end(let name): "</\(name)>"
            case .text(let text): "text \(text.debugDescription)"
            case .raw(let text): "raw \(text.debugDescription)"
            }
        }
    }

    /// An attribute of a start tag.
    struct Attribute: Equatable {
        var name: String
        var value: String
    }

    /// The tokens, in page order.
    var tokens: [Token] = []

    /// Tokenizes `html` following the HTML tokenizer's states for tags and attributes: a quoted
    /// value ends at its quote, whatever follows it; `/` and white space separate attributes.
    init(_ html: String) {
        let scalars = Array(html.unicodeScalars)
        var index = 0
        var text = ""
        func flushText() {
            if !text.isEmpty { tokens.append(.text(Self.decode(text))) }
            text = ""
        }
        func read(until stop: String) -> String {
            var read = ""
            let stopScalars = Array(stop.unicodeScalars)
            while index < scalars.count {
                if Array(scalars[index..<min(scalars.count, index + stopScalars.count)]).map({ Character($0).lowercased() })
                    == stopScalars.map({ Character($0).lowercased() })
                {
                    index += stopScalars.count
                    return read
                }
                read.unicodeScalars.append(scalars[index])
                index += 1
            }
            return read
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == "\u{C}"
        }
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") }

        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "<", index + 1 < scalars.count else {
                text.unicodeScalars.append(scalar)
                index += 1
                continue
            }
            let next = scalars[index + 1]
            if next == "!" {
                flushText()
                index += 2
                tokens.append(.raw(read(until: ">")))
            } else if next == "/", index + 2 < scalars.count, isLetter(scalars[index + 2]) {
                flushText()
                index += 2
                tokens.append(.end(name: read(until: ">").lowercased()))
            } else if isLetter(next) {
                flushText()
                index += 1
                var name = ""
                while index < scalars.count, !isSpace(scalars[index]), scalars[index] != "/", scalars[index] != ">" {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                var attributes: [Attribute] = []
                while index < scalars.count, scalars[index] != ">" {
                    if isSpace(scalars[index]) || scalars[index] == "/" {
                        index += 1
                        continue
                    }
                    var attribute = Attribute(name: "", value: "")
                    // The first character of a name may be `=`; after it, `=` ends the name.
                    repeat {
                        attribute.name.unicodeScalars.append(scalars[index])
                        index += 1
                    } while index < scalars.count && !isSpace(scalars[index]) && !["/", ">", "="].contains(scalars[index])
                    while index < scalars.count, isSpace(scalars[index]) { index += 1 }
                    if index < scalars.count, scalars[index] == "=" {
                        index += 1
                        while index < scalars.count, isSpace(scalars[index]) { index += 1 }
                        if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
                            let quote = scalars[index]
                            index += 1
                            attribute.value = Self.decode(read(until: String(quote)))
                        } else {
                            var value = ""
                            while index < scalars.count, !isSpace(scalars[index]), scalars[index] != ">" {
                                value.unicodeScalars.append(scalars[index])
                                index += 1
                            }
                            attribute.value = Self.decode(value)
                        }
                    }
                    attribute.name = attribute.name.lowercased()
                    attributes.append(attribute)
                }
                index += 1
                name = name.lowercased()
                tokens.append(.start(name: name, attributes: attributes))
                if name == "script" || name == "style" {
                    tokens.append(.raw(read(until: "</\(name)")))
                    index -= "</\(name)".unicodeScalars.count
                }
            } else {
                text.unicodeScalars.append(scalar)
                index += 1
            }
        }
        flushText()
    }

    /// `text` with the character references pages use decoded: `&amp;`, `&lt;`, `&gt;`,
    /// `&quot;`, `&#39;` and numeric ones.
    static func decode(_ text: String) -> String {
        // By scalar: `&amp;` followed by a combining mark is still a reference to a browser.
        let scalars = Array(text.unicodeScalars)
        let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
        var decoded = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "&", let end = scalars[index...].prefix(12).firstIndex(of: ";") else {
                decoded.append(scalars[index])
                index += 1
                continue
            }
            var name = ""
            name.unicodeScalars.append(contentsOf: scalars[(index + 1)..<end])
            let reference: Unicode.Scalar? =
                if let value = named[name] {
                    value
                } else if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init)
                } else {
                    nil
                }
            if let reference {
                decoded.append(reference)
                index = end + 1
            } else {
                decoded.append(scalars[index])
                index += 1
            }
        }
        return String(decoded)
    }
}
