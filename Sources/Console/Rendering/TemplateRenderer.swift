import Foundation
import Mustache

/// The templates of the templates directory, loaded and parsed once at start, and rendered with
/// HTML escaping: `{{name}}` escapes `& < > " '`, so values are safe in text and in quoted
/// attributes. Templates are named by their path without `.mustache` (`signin`, `partials/nav`).
///
/// Pages extend the shared layout through Mustache inheritance:
///
/// ```mustache
/// {{<layout}}{{$title}}Sign in{{/title}}{{$content}}…{{/content}}{{/layout}}
/// ```
struct TemplateRenderer: Sendable {
    /// The templates the console's pages need; loading fails at start if one is missing.
    static let requiredTemplates = ["layout", "error", "start", "signin", "signin-complete"]

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
        let root = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let paths = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        for path in paths.sorted() where path.hasSuffix(".mustache") {
            let file = root + "/" + path
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .templateInvalid(file: file, line: 0, column: 0, reason: "the file cannot be read")
            }
            do {
                templates[String(path.dropLast(".mustache".count))] = try MustacheTemplate(string: String(decoding: data, as: UTF8.self))
            } catch let error as MustacheTemplate.ParserError {
                throw .templateInvalid(
                    file: file, line: error.context.lineNumber, column: error.context.columnNumber, reason: "\(error.error)")
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
    func render(_ name: String, _ context: [String: Any]) throws(ConsoleError) -> String {
        guard let text = library.render(context, withTemplate: name) else {
            throw .internalError("No template named '\(name)' in \(directory)")
        }
        return text
    }
}
