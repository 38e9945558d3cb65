import Testing

@testable import cumulus

/// The settings `cumulus serve` hands the console: templates directory and public URL.
@Suite struct ConsoleSettingsTests {
    @Test func defaultsToTheTemplatesFolderAndHostDerivedLinks() throws {
        let settings = try ServerSettings.resolve(arguments: [], environment: [:])
        #expect(settings.templatesDirectory == "./Templates")
        #expect(settings.publicURL == nil)
    }

    @Test func flagsWinOverEnvironment() throws {
        let environment = ["CUMULUS_TEMPLATES_DIR": "/srv/templates", "CUMULUS_PUBLIC_URL": "https://env.example.com"]
        let fromEnvironment = try ServerSettings.resolve(arguments: [], environment: environment)
        #expect(fromEnvironment.templatesDirectory == "/srv/templates")
        #expect(fromEnvironment.publicURL == "https://env.example.com")
        let fromFlags = try ServerSettings.resolve(
            arguments: ["--templates-dir", "pages", "--public-url", "https://cloud.example.com/base/"], environment: environment)
        #expect(fromFlags.templatesDirectory == "pages")
        #expect(fromFlags.publicURL == "https://cloud.example.com/base")
    }

    @Test(arguments: [
        "cloud.example.com", "ftp://cloud.example.com", "https://", "https:///path", "https://a.example/?x=1",
        "https://a.example/#top", "https://user@a.example", "https://a.example/ b", "https://a.example/\"<x>",
    ])
    func rejectsURLsLinksCannotBeBuiltOn(_ url: String) {
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(arguments: [], environment: ["CUMULUS_PUBLIC_URL": url])
        }
    }
}
