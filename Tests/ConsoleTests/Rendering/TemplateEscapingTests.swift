import Foundation
import Mustache
import Testing

@testable import Console

/// Security review N4: a quote, apostrophe or `>` followed by a combining mark is one
/// `Character` to Swift but two code points to a browser, so escaping per `Character` let it
/// end an attribute value and add attributes to console pages. Pages escape by byte now.
@Suite struct TemplateEscapingTests {
    /// What app users can put in names and values: each special character carries a combining
    /// mark, and `/x=y/` would become an attribute if the quote before it got out.
    static let hostile = "\"\u{301}/x=y/ '\u{301}/z=w/ >\u{301}<b>&\u{301}amp;"
    /// The review's record name: a hidden, pre-checked checkbox in the records table.
    static let breakout = "welcome\"\u{301}/checked/hidden/"
    /// A value that changes nothing, to render the markup each template should have.
    static let benign = "benignvalue"

    @Test func escapingIsByScalarWhateverMarksFollow() {
        #expect(HTMLEscaping.escape("\"\u{301}") == "&quot;\u{301}")
        #expect(HTMLEscaping.escape("'\u{301}") == "&#39;\u{301}")
        #expect(HTMLEscaping.escape(">\u{301}") == "&gt;\u{301}")
        #expect(HTMLEscaping.escape("<\u{301}") == "&lt;\u{301}")
        #expect(HTMLEscaping.escape("&\u{301}") == "&amp;\u{301}")
        #expect(HTMLEscaping.escape("<b>\"x\" & 'y'</b>") == "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;")
        #expect(HTMLEscaping.escape("plain é 🙂") == "plain é 🙂")
        #expect(HTMLEscaping.escape("") == "")
        // The escaped text holds no quote, apostrophe or angle bracket scalar at all.
        let escaped = HTMLEscaping.escape(Self.hostile)
        #expect(!escaped.unicodeScalars.contains { "\"'<>".unicodeScalars.contains($0) })
    }

    @Test func theReviewsAttributeBreakoutIsGone() throws {
        let folder = try TemplateRendererTests.TemplateFolder(extra: [
            "partials/record.mustache": "<input type=\"checkbox\" name=\"record\" value=\"{{name}}\" form=\"bulk\">"
        ])
        let html = try TemplateRenderer(directory: folder.path).render("partials.record", ["name": Self.breakout])
        let tokens = HTMLTokens(html).tokens
        #expect(tokens.count == 1)
        guard case .start(_, let attributes) = tokens.first else {
            Issue.record("no input in \(html)")
            return
        }
        #expect(attributes.map(\.name) == ["type", "name", "value", "form"])
        let value = attributes.first(where: { $0.name == "value" })?.value
        #expect(value == Self.breakout)
    }

    @Test func aTemplateCannotChooseItsOwnEscaping() throws {
        for text in ["{{% CONTENT_TYPE: HTML}}<p>{{v}}</p>", "<p>\n{{=<% %>=}}<%% CONTENT_TYPE: TEXT %></p>"] {
            let folder = try TemplateRendererTests.TemplateFolder(extra: ["partials/own.mustache": text])
            #expect(throws: ConsoleError.self) { try TemplateRenderer(directory: folder.path) }
        }
    }

    /// Every template of the repository, found by listing the folder so that a new one is
    /// covered at once, rendered with every value hostile and then benign: the markup must be
    /// the same, and every attribute and text must hold the hostile value exactly where the
    /// benign one stood. Sections render once with everything true and once with everything
    /// false, so inverted sections are covered too.
    @Test func everyTemplateKeepsItsMarkupWithHostileValues() throws {
        let renderer = try TemplateRenderer(directory: repositoryTemplates)
        let names = try Self.templateNames()
        #expect(names.count >= TemplateRenderer.requiredTemplates.count)
        for name in names {
            let text = try String(
                contentsOfFile: "\(repositoryTemplates)/\(name.replacingOccurrences(of: ".", with: "/")).mustache", encoding: .utf8)
            // `{{{…}}}` and `{{&…}}` skip escaping: only for ScriptLiteral values, by name.
            for unescaped in Self.unescapedNames(in: text) {
                #expect(Everything.scriptValues.contains(unescaped), "\(name) inserts \(unescaped) unescaped")
            }
            for truthy in [true, false] {
                let benign = try renderer.render(name, view: Everything(text: Self.benign, truthy: truthy))
                let hostile = try renderer.render(name, view: Everything(text: Self.hostile, truthy: truthy))
                let shown = benign.contains(Self.benign)
                if truthy { #expect(shown, "\(name) shows no value") }
                // Outside script literals (JSON, where `\"` is fine), no special character is raw.
                let markup = hostile.replacingOccurrences(of: ScriptLiteral.string(Self.hostile), with: "")
                for mark in ["\"\u{301}", "'\u{301}", ">\u{301}", "<\u{301}", "&\u{301}"] {
                    let raw = Self.containsScalars(markup, mark)
                    #expect(!raw, "\(name) writes \(mark.debugDescription) raw")
                }
                let expected = HTMLTokens(benign).tokens.map(Self.replacingBenign)
                let actual = HTMLTokens(hostile).tokens
                #expect(actual.count == expected.count, "\(name): \(actual.count) tokens with hostile values, \(expected.count) without")
                for (got, want) in zip(actual, expected) where got != want {
                    Issue.record("\(name) (sections \(truthy)): \(got) where \(want) was expected")
                    break
                }
            }
        }
    }

    /// The token a benign rendering has, with the hostile value where the benign one was: what
    /// the hostile rendering must parse to.
    static func replacingBenign(_ token: HTMLTokens.Token) -> HTMLTokens.Token {
        switch token {
        case .start(let name, let attributes):
            .start(
                name: name,
                attributes: attributes.map { .init(name: $0.name, value: $0.value.replacingOccurrences(of: benign, with: hostile)) })
        case .end: token
        case .text(let text): .text(text.replacingOccurrences(of: benign, with: hostile))
        case .raw(let text):
            .raw(
                text.replacingOccurrences(of: ScriptLiteral.string(benign), with: ScriptLiteral.string(hostile))
                    .replacingOccurrences(of: benign, with: HTMLEscaping.escape(hostile)))
        }
    }

    /// Whether `text` holds the scalars of `part` in a row (Swift's own `contains` compares
    /// whole characters, and would not find `"` + U+0301 inside `a"` + U+0301).
    static func containsScalars(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.unicodeScalars), needle = Array(part.unicodeScalars)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// The template names under the repository's Templates/, by listing the folder.
    static func templateNames() throws -> [String] {
        let files = (FileManager.default.enumerator(atPath: repositoryTemplates)?.allObjects as? [String]) ?? []
        return files.filter { $0.hasSuffix(".mustache") }.sorted().map {
            String($0.dropLast(".mustache".count)).replacingOccurrences(of: "/", with: ".")
        }
    }

    /// The names a template inserts without escaping, with `{{{name}}}` or `{{&name}}`.
    static func unescapedNames(in text: String) -> [String] {
        var names: [String] = []
        for (open, close) in [("{{{", "}}}"), ("{{&", "}}")] {
            for piece in text.components(separatedBy: open).dropFirst() {
                if let end = piece.range(of: close) { names.append(piece[..<end.lowerBound].trimmingCharacters(in: .whitespaces)) }
            }
        }
        return names
    }

    /// A view model that answers every name: with `text` when shown, with itself when asked for
    /// a child, and as true or false to a section. Names ending in `Script` are ScriptLiteral
    /// values, as the pages hand them.
    struct Everything: MustacheParent, MustacheCustomRenderable {
        static let scriptValues: Set<String> = ["webAuthTokenScript", "targetOriginScript"]

        let text: String
        let truthy: Bool

        var renderText: String { text }
        var isNull: Bool { !truthy }

        func child(named name: String) -> Any? {
            Self.scriptValues.contains(name) ? Script(text: ScriptLiteral.string(text)) : self
        }

        /// A ScriptLiteral value: rendered by `{{{…}}}` as it is.
        struct Script: MustacheCustomRenderable {
            let text: String
            var renderText: String { text }
            var isNull: Bool { false }
        }
    }
}
