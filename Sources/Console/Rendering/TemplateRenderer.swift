import Foundation
import Mustache

/// The templates of the templates directory, loaded and parsed once at start, and rendered with
/// our own HTML escaping (``HTMLEscaping``): `{{name}}` escapes every `& < > " '` byte, so values
/// are safe in text and in quoted attributes whatever combining marks follow them. Templates are
/// named by their path without `.mustache`, folders joined by dots (`signin`, `console.records`
/// for `console/records.mustache`), as Mustache names cannot hold `/`.
///
/// Pages extend the shared layout through Mustache inheritance:
///
/// ```mustache
/// {{<layout}}{{$title}}Sign in{{/title}}{{$content}}…{{/content}}{{/layout}}
/// ```
struct TemplateRenderer: Sendable {
    /// The templates the console's pages need, those ``ConsolePageTable`` declares; loading
    /// fails at start if one is missing.
    static var requiredTemplates: [String] { ConsolePageTable.templates }

    /// The folder the templates were loaded from.
    let directory: String
    private let library: MustacheLibrary
    private let names: Set<String>

    /// Loads every `.mustache` file under `directory`.
    /// - Throws: ``ConsoleError/templatesDirectoryMissing(_:)``, ``ConsoleError/templateInvalid(file:line:column:reason:)``
    ///   naming the file and position, or ``ConsoleError/templateMissing(name:directory:)``.
    init(directory: String) throws(ConsoleError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .templatesDirectoryMissing(directory)
        }
        // Loaded here rather than by `MustacheLibrary(directory:)`, which is async and drops
        // unreadable files silently: a start-up error should name the file that is wrong.
        var templates: [String: MustacheTemplate] = [:]
        _ = HTMLEscaping.registered
        let root = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let paths = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        for path in paths.sorted() where path.hasSuffix(".mustache") {
            let file = root + "/" + path
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .templateInvalid(file: file, line: 0, column: 0, reason: "the file cannot be read")
            }
            let text = String(decoding: data, as: UTF8.self)
            // A template choosing its content type would bring back the engine's escaping.
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(where: { $0.contains("CONTENT_TYPE") }) {
                throw .templateInvalid(
                    file: file, line: line + 1, column: 0,
                    reason: "a template may not set CONTENT_TYPE: the console escapes every value itself")
            }
            do {
                templates[String(path.dropLast(".mustache".count)).replacingOccurrences(of: "/", with: ".")] = try MustacheTemplate(
                    string: HTMLEscaping.pragma + text)
            } catch let error as MustacheTemplate.ParserError {
                // The pragma is a line of its own before the file's first.
                throw .templateInvalid(
                    file: file, line: error.context.lineNumber - 1, column: error.context.columnNumber, reason: "\(error.error)")
            } catch {
                throw .templateInvalid(file: file, line: 0, column: 0, reason: "\(error)")
            }
        }
        for name in Self.requiredTemplates where templates[name] == nil {
            throw .templateMissing(name: name, directory: directory)
        }
        self.directory = directory
        self.library = MustacheLibrary(templates: templates)
        self.names = Set(templates.keys)
    }

    /// Whether a template of this name was loaded.
    func has(_ name: String) -> Bool { names.contains(name) }

    /// Renders the template `name` with `context`.
    /// - Parameters:
    ///   - name: A loaded template.
    ///   - context: String keys to strings, booleans, arrays of dictionaries and dictionaries.
    /// - Throws: ``ConsoleError/internalError(_:)`` when no such template was loaded.
    /// An empty string is false to a section (`{{#x}}`), as mustache.js has it, so a page
    /// never renders the markup around a value that is not there.
    func render(_ name: String, _ context: [String: Any]) throws(ConsoleError) -> String {
        try render(name, view: Self.blankingEmptyStrings(context))
    }

    /// Renders the template `name` with any view model swift-mustache can read.
    func render(_ name: String, view: Any) throws(ConsoleError) -> String {
        guard let text = library.render(view, withTemplate: name) else {
            throw .internalError("No template named '\(name)' in \(directory)")
        }
        return text
    }

    /// `value` with every empty string, at any depth, replaced by ``Blank``.
    static func blankingEmptyStrings(_ value: Any) -> Any {
        switch value {
        case let string as String: return string.isEmpty ? Blank() : string
        case let dictionary as [String: Any]: return dictionary.mapValues(blankingEmptyStrings)
        case let array as [[String: Any]]: return array.map { $0.mapValues(blankingEmptyStrings) }
        case let array as [Any]: return array.map(blankingEmptyStrings)
        default: return value
        }
    }

    /// An empty string as templates see it: nothing when shown, false to a section.
    struct Blank: MustacheCustomRenderable {
        var renderText: String { "" }
        var isNull: Bool { true }
    }
}
