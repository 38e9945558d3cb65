import CloudKitWire
import CloudStore
import HTTPServer

/// The app users of a container: list and search, add with a password, reset a password,
/// sign out everywhere, remove (after a confirmation).
///
/// Under `/console/containers/C/ENV/users`: `GET` (`?search=`), `POST` (add),
/// `POST /U/password`, `POST /U/sign-out`, `POST /U/remove`.
struct UsersPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.users"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/users"
        return [
            .get(base) { request in try pages.list(request) },
            .post(base) { request in try pages.add(request) },
            .post(base + "/:user/password") { request in try pages.password(request) },
            .post(base + "/:user/sign-out") { request in try pages.signOut(request) },
            .post(base + "/:user/discoverable") { request in try pages.discoverable(request) },
            .post(base + "/:user/remove") { request in try pages.remove(request) },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let search = request.query("search")
        let answer = try actions.users(in: try location.identifier, search: search, as: request.identity)
        let timeZone = Formatting.timeZone(of: request.http)
        let users = answer.users.map { user -> [String: Any] in
            let userPath = location.path(.users, "/" + URLEncoding.component(user.userRecordName))
            var actAs = location
            actAs.database = .private
            actAs.user = user.name
            return [
                "name": user.name, "userRecordName": user.userRecordName,
                "email": user.emailAddress ?? "",
                "fullName": [user.firstName, user.lastName].compactMap { $0 }.joined(separator: " "),
                "roles": (user.roles[location.environment] ?? []).joined(separator: ", "),
                "sessions": String(user.openSessions),
                "created": Formatting.time(user.created, in: timeZone),
                "passwordAction": userPath + "/password", "signOutAction": userPath + "/sign-out", "removeAction": userPath + "/remove",
                "discoverableAction": userPath + "/discoverable", "discoverable": user.discoverable,
                "actAsURL": actAs.path(.records), "canActAs": location.environment == .development,
                "id": RecordForm.identifier(user.userRecordName),
            ]
        }
        return .page(
            Page(
                "console.users",
                context: [
                    "bar": location.bar(.users), "users": users, "hasUsers": !users.isEmpty, "search": search ?? "",
                    "action": location.path(.users),
                ]))
    }

    private func add(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.users)) {
            _ = try actions.addUser(
                in: try location.identifier, name: name, password: request.field("password") ?? "",
                emailAddress: request.field("emailAddress"),
                firstName: request.field("firstName"), lastName: request.field("lastName"), as: request.identity)
            return "User \(name) added."
        }
    }

    private func password(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = request.path("user")
        return try console.attempt(back: location.path(.users)) {
            let answer = try actions.setUserPassword(
                user, in: try location.identifier, password: request.field("password") ?? "", as: request.identity)
            return "New password set for \(answer.name); their sessions have ended."
        }
    }

    private func signOut(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = request.path("user")
        return try console.attempt(back: location.path(.users)) {
            let ended = try actions.signOutUser(user, in: try location.identifier, as: request.identity).endedSessions
            return "Signed \(user) out everywhere (\(ended) session\(ended == 1 ? "" : "s") ended)."
        }
    }

    private func discoverable(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = request.path("user")
        let discoverable = request.field("discoverable") == "yes"
        return try console.attempt(back: location.path(.users)) {
            let name = try actions.setUserDiscoverable(user, in: try location.identifier, discoverable: discoverable, as: request.identity)
                .name
            return discoverable
                ? "Other users can now find \(name) by email address or user record name."
                : "\(name) can no longer be found by other users."
        }
    }

    private func remove(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = request.path("user")
        let label = UserNames(try location.identifier, actions).label(user)
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Remove user \(label)?",
                    message: "This removes the user \(label): they can no longer sign in and their sessions end. "
                        + "Records they created stay. It cannot be undone.",
                    action: request.http.path, button: "Remove user", fields: [], cancelURL: location.path(.users),
                    bar: location.bar(.users)))
        }
        return try console.attempt(back: location.path(.users)) {
            _ = try actions.removeUser(user, in: try location.identifier, as: request.identity)
            return "User \(label) removed."
        }
    }
}
