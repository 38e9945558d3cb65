// Seeds and checks a data directory for the browser tests of the sign-in flow (Tests/browser).
//
// Usage:
//   ConsoleFixture seed DATA_DIR ORIGIN CALLBACK_URL
//       Creates container iCloud.com.example.Notes (if missing), a user, and two API tokens that
//       allow ORIGIN: one without a sign-in callback (postMessage) and one with CALLBACK_URL.
//       Prints {"container", "user", "password", "postMessageToken", "callbackToken"} as JSON.
//   ConsoleFixture verify DATA_DIR CONTAINER WEB_AUTH_TOKEN
//       Exits 0 and prints the user record name when the store accepts the token, else exits 1.
import CloudStore
import Foundation

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

func openStore(_ directory: String) throws -> CloudStore {
    var configuration = CloudStoreConfiguration(dataDirectory: directory)
    // Users added here verify fast even in a debug server: a stored hash carries its own cost.
    configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
    return try CloudStore(configuration: configuration)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "seed" where arguments.count == 4:
        let store = try openStore(arguments[1])
        let container = try ContainerIdentifier("iCloud.com.example.Notes")
        if try store.container(container) == nil { try store.createContainer(container) }
        let name = "alice-\(UUID().uuidString.prefix(8).lowercased())"
        let password = "correct horse battery staple"
        try store.addUser(container, name: name, password: password)
        let postMessage = try store.createAPIToken(container, .development, name: "web", allowedOrigins: [arguments[2]])
        let callback = try store.createAPIToken(
            container, .development, name: "callback", allowedOrigins: [arguments[2]], signInCallback: arguments[3])
        let output: [String: String] = [
            "container": container.rawValue, "user": name, "password": password,
            "postMessageToken": postMessage.token, "callbackToken": callback.token,
        ]
        let json = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
        FileHandle.standardOutput.write(json + Data("\n".utf8))
    case "verify" where arguments.count == 4:
        let store = try openStore(arguments[1])
        do {
            let session = try store.session(forWebAuthToken: arguments[3], in: try ContainerIdentifier(arguments[2]), .development)
            print(session.userRecordName)
        } catch CloudStoreError.authenticationRequired(let reason) {
            fail("rejected: \(reason)", status: 1)
        }
    default:
        fail("usage: ConsoleFixture seed DATA_DIR ORIGIN CALLBACK_URL | verify DATA_DIR CONTAINER WEB_AUTH_TOKEN")
    }
} catch {
    fail("error: \(error)")
}
