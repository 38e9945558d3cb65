import Foundation
import HTTPServer
import Testing

@testable import Console

@Suite struct TemplateRendererTests {
    /// A temporary folder holding copies of the repository's templates plus `extra` files.
    final class TemplateFolder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-templates-\(UUID().uuidString)").path

        init(copying names: [String] = TemplateRenderer.requiredTemplates, extra: [String: String] = [:]) throws {
            for folder in ["partials", "console"] {
                try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
            }
            for name in names {
                // A template's name joins its folders with dots.
                let file = name.replacingOccurrences(of: ".", with: "/") + ".mustache"
                try FileManager.default.copyItem(atPath: "\(repositoryTemplates)/\(file)", toPath: "\(path)/\(file)")
            }
            for (name, text) in extra { try Data(text.utf8).write(to: URL(fileURLWithPath: "\(path)/\(name)")) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func aMissingDirectoryIsAClearErrorNamingIt() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-templates-\(UUID().uuidString)").path
        #expect(throws: ConsoleError.templatesDirectoryMissing(missing)) { try TemplateRenderer(directory: missing) }
        var router = Router()
        let store = try ConsoleTestServer(createContainer: false).store
        do {
            try Console.mount(on: &router, store: store, configuration: ConsoleConfiguration(templatesDirectory: missing, version: "1"))
            Issue.record("mounting without templates succeeded")
        } catch {
            #expect(error == .templatesDirectoryMissing(missing))
            #expect(error.description.contains("'\(missing)' does not exist"))
            #expect(error.description.contains("--templates-dir"))
        }
    }

    @Test func aMissingPageTemplateIsNamed() throws {
        let required = TemplateRenderer.requiredTemplates
        let folder = try TemplateFolder(copying: Array(required.dropLast()))
        #expect(throws: ConsoleError.templateMissing(name: required.last ?? "", directory: folder.path)) {
            try TemplateRenderer(directory: folder.path)
        }
    }

    @Test func aBrokenTemplateIsNamedWithItsLine() throws {
        let folder = try TemplateFolder(extra: ["partials/broken.mustache": "<p>fine</p>\n<p>{{#open}}never closed</p>\n"])
        do {
            _ = try TemplateRenderer(directory: folder.path)
            Issue.record("a broken template loaded")
        } catch {
            guard case .templateInvalid(let file, let line, _, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(file == folder.path + "/partials/broken.mustache")
            #expect(line >= 2)
            #expect(error.description.contains("broken.mustache"))
        }
    }

    @Test func valuesAreHTMLEscapedAndPagesShareTheLayout() throws {
        let folder = try TemplateFolder(extra: [
            "partials/sample.mustache": "{{<layout}}{{$content}}<p title=\"{{value}}\">{{value}}</p>{{/content}}{{/layout}}"
        ])
        let renderer = try TemplateRenderer(directory: folder.path)
        #expect(renderer.has("partials.sample"))
        let html = try renderer.render("partials.sample", ["value": "<b>\"x\" & 'y'</b>", "version": "1.2.3"])
        #expect(html.contains("<p title=\"&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;\">&lt;b&gt;&quot;x&quot;"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("Cumulus 1.2.3"))
        #expect(throws: ConsoleError.self) { try renderer.render("nope", [:]) }
    }

    @Test func anEmptyStringIsFalseToASectionAndBlankWhenShown() throws {
        let folder = try TemplateFolder(extra: [
            "partials/empty.mustache": "[{{#a}}has {{a}}{{/a}}{{^a}}none{{/a}}|{{b}}|{{#rows}}{{#c}}<{{c}}>{{/c}}{{^c}}-{{/c}}{{/rows}}]"
        ])
        let renderer = try TemplateRenderer(directory: folder.path)
        let html = try renderer.render("partials.empty", ["a": "", "b": "", "rows": [["c": "x"], ["c": ""]]])
        #expect(html == "[none||<x>-]")
        #expect(try renderer.render("partials.empty", ["a": "1", "b": "2", "rows": [[String: Any]]()]) == "[has 1|2|]")
    }
}
