import CloudStore
import HTTPServer
import Logging

extension Console {
    /// The management API (`/admin/v1/…`) answered in this process, as the local command line
    /// (``OperatorIdentity/local``): what `cumulus` commands call on a data directory, so they
    /// run the same actions, and get the same answers and errors, as against a remote server.
    /// - Parameters:
    ///   - store: The store the data directory holds.
    ///   - logger: Where unexpected failures are logged.
    public static func localManagementAPI(store: CloudStore, logger: Logger = Logger(label: "cumulus.management")) -> InProcessResponder {
        var router = Router()
        let authenticator = OperatorAuthenticator(store: store, fixedIdentity: .local)
        ManagementAPI(actions: ManagementActions(store: store), authenticator: authenticator, logger: logger).mount(on: &router)
        return InProcessResponder(router)
    }
}
