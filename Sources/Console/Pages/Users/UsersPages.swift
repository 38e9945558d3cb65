import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// The app users of a container: list and search, add with a password, reset a password,
/// sign out everywhere, remove (after a confirmation), export everything of theirs, erase them
/// (after a dry run shown as the confirmation).
///
/// Under `/console/containers/C/ENV/users`: `GET` (`?search=`), `POST` (add),
/// `POST /U/password`, `POST /U/sign-out`, `POST /U/remove`, `GET /U/export`, `POST /U/erase`.
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
            .get(base + "/:user/export") { request in try pages.export(request) },
            .post(base + "/:user/erase") { request in try pages.erase(request) },
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
                "exportURL": userPath + "/export", "eraseAction": userPath + "/erase",
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

    /// Everything of the user's, in both environments, as a tar archive.
    private func export(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let export = try actions.exportUser(request.path("user"), in: try location.identifier, environment: nil, as: request.identity)
        return .response(ManagementAPI.backupDownload(URL(fileURLWithPath: export.path).lastPathComponent, .copy(export.path)))
    }

    /// Erases the user from both environments, after a dry run whose counts are the confirmation.
    private func erase(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = request.path("user")
        let label = UserNames(try location.identifier, actions).label(user)
        guard request.isConfirmed else {
            let counts: UserErasureView
            do {
                counts = try actions.eraseUser(user, in: try location.identifier, environment: nil, dryRun: true, as: request.identity)
            } catch {
                // Refused (a developer, production included) or unknown: said on the list, as a change's failure is.
                let mapped = ConsoleError(error)
                guard mapped.isShown else { throw mapped }
                return .redirect(location.path(.users), .failure(mapped.description))
            }
            return .page(
                ConfirmPage.page(
                    title: "Erase user \(label)?",
                    message: "This erases everything of \(label)'s in both environments, as listed, ends their sessions and removes "
                        + "their account. Other users' devices see the deletions. Their request log entries keep an anonymous id. "
                        + "It cannot be undone.",
                    items: Self.describe(counts.erasure), action: request.http.path, button: "Erase user", fields: [],
                    cancelURL: location.path(.users), bar: location.bar(.users)))
        }
        return try console.attempt(back: location.path(.users)) {
            let erased = try actions.eraseUser(user, in: try location.identifier, environment: nil, dryRun: false, as: request.identity)
            let records = erased.erasure.environments.values.reduce(0) {
                $0 + $1.privateRecords + $1.publicRecordsDeleted + $1.sharedRecords
            }
            return "User \(label) erased: \(records) records deleted."
        }
    }

    /// The counts of an erasure, one line each, for the confirmation.
    static func describe(_ erasure: UserErasure) -> [String] {
        var lines: [String] = []
        for (environment, counts) in erasure.environments.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append(
                "\(environment): \(counts.privateRecords) private records in \(counts.privateZones) zones (\(counts.shares) shares), "
                    + "\(counts.publicRecordsDeleted) public records, \(counts.sharedRecords) records in zones others shared, "
                    + "\(counts.participations) participations, \(counts.subscriptions) subscriptions, \(counts.pushTokens) push tokens")
        }
        lines.append("\(erasure.sessions) open sessions; \(erasure.requestLogEntries) request log entries anonymised")
        return lines
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
