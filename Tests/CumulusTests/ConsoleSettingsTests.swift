@testable import cumulus
import Testing

/// The settings `cumulus serve` hands the console: templates directory and public URL.
@Suite struct ConsoleSettingsTests {
    @Test func defaultsToTheTemplatesFolderAndHostDerivedLinks() throws {
        let settings = try ServerSettings.resolve(options: ServeOptions(), environment: [:])
        #expect(settings.templatesDirectory == "./Templates")
        #expect(settings.publicURL == nil)
    }

    @Test func flagsWinOverEnvironment() throws {
        let environment = ["CUMULUS_TEMPLATES_DIR": "/srv/templates", "CUMULUS_PUBLIC_URL": "https://env.example.com"]
        let fromEnvironment = try ServerSettings.resolve(options: ServeOptions(), environment: environment)
        #expect(fromEnvironment.templatesDirectory == "/srv/templates")
        #expect(fromEnvironment.publicURL == "https://env.example.com")
        var options = ServeOptions()
        options.templatesDirectory = "pages"
        options.publicURL = "https://cloud.example.com/base/"
        let fromFlags = try ServerSettings.resolve(options: options, environment: environment)
        #expect(fromFlags.templatesDirectory == "pages")
        #expect(fromFlags.publicURL == "https://cloud.example.com/base")
    }

    @Test(arguments: ["cloud.example.com", "ftp://cloud.example.com", "https://", "https:///path", "https://a.example/?x=1",
                      "https://a.example/#top", "https://user@a.example", "https://a.example/ b", "https://a.example/\"<x>"])
    func rejectsURLsLinksCannotBeBuiltOn(_ url: String) {
        #expect(throws: ServerSettings.InvalidSetting.self) {
            try ServerSettings.resolve(options: ServeOptions(), environment: ["CUMULUS_PUBLIC_URL": url])
        }
    }
}
