import CloudStore
import Foundation
import HTTPServer
import WebServices

/// The store, API and credentials every input uses, made once.
final class Fixture: Sendable {
    let responder: InProcessResponder
    let apiToken: String
    let webAuthToken: String
    let container = "iCloud.com.example.Fuzz"

    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                title STRING QUERYABLE SORTABLE SEARCHABLE,
                rank INT64 QUERYABLE SORTABLE,
                score DOUBLE QUERYABLE SORTABLE,
                at TIMESTAMP QUERYABLE SORTABLE,
                place LOCATION QUERYABLE SORTABLE,
                owner REFERENCE QUERYABLE,
                tags LIST<STRING> QUERYABLE,
                ranks LIST<INT64> QUERYABLE,
                data BYTES,
                file ASSET,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world",
                GRANT READ, WRITE TO Editor
            );
        """

    init() {
        do {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-fuzz-\(UUID().uuidString)").path
            var configuration = CloudStoreConfiguration(dataDirectory: directory)
            configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 4, blockSize: 1, parallelism: 1))
            let store = try CloudStore(configuration: configuration)
            let identifier = try ContainerIdentifier(container)
            try store.createContainer(identifier)
            try store.importSchema(Self.schema, into: identifier, .development)
            apiToken = try store.createAPIToken(identifier, .development, allowedOrigins: ["*"]).token
            try store.addUser(identifier, name: "fuzz", password: "a fuzzing password")
            webAuthToken = try store.signIn(identifier, .development, name: "fuzz", password: "a fuzzing password").webAuthToken
            var router = Router()
            WebServices(
                store: store, configuration: WebServicesConfiguration(signInURL: { base, token, _ in "\(base)/signin?ckAPIToken=\(token)" })
            )
            .mount(on: &router)
            responder = InProcessResponder(router) { error in print("internal error: \(error)") }
        } catch {
            fatalError("the fuzzing fixture could not be made: \(error)")
        }
    }
}
