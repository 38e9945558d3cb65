import CloudStore
import HTTPServer
import Logging

/// What every console page shares: the operator's session checked (a redirect to the login
/// page without one), the form token checked on every post, the page rendered in the console
/// frame with the operator's name, the form token and the notice the previous page left.
/// A page lists its routes (``ConsoleRoute/get(_:_:)``, ``ConsoleRoute/post(_:maxBodyBytes:_:)``)
/// and returns a ``ConsoleAnswer``.
struct ConsolePages: Sendable {
    /// The form field carrying the session's CSRF token.
    static let csrfField = "csrfToken"
    /// Form posts the console accepts: a schema upload is the largest.
    static let maximumFormBytes = 5 * 1024 * 1024

    /// A page handler.
    typealias Handler = @Sendable (ConsoleRequest) throws -> ConsoleAnswer

    let pages: PageRenderer
    let authenticator: OperatorAuthenticator
    let actions: ManagementActions
    let configuration: ConsoleConfiguration
    let logger: Logger

    /// Adds `route` to `group`, its path under `/console`.
    func mount(_ route: ConsoleRoute, on group: inout RouteGroup) {
        let options = RouteOptions(maxBodyBytes: route.maxBodyBytes)
        switch route.handler {
        case .page(let handler):
            let pages = self
            // A route its page type did not classify is for owners of every container.
            let needs = route.needs ?? (.changes(.operators), .changes(.operators))
            group.route([route.method], "/console" + route.path, options: options) { request in
                try pages.handle(request, needs: needs, handler)
            }
        case .open(let handler):
            group.route([route.method], "/console" + route.path, options: options, handler)
        }
    }

    private func handle(
        _ request: HTTPRequest, needs: (route: OperatorPermission, post: OperatorPermission), _ handler: Handler
    ) throws -> HTTPResponse {
        let form: FormData
        if request.method == .post {
            form = try FormData(request: request, multipartAllowed: true)
        } else {
            form = FormData()
        }
        let operatorRequest: OperatorRequest
        do {
            operatorRequest = try authenticator.authenticate(request, formToken: form[Self.csrfField] ?? "")
        } catch CloudStoreError.authenticationFailed, CloudStoreError.authenticationRequired {
            let next = request.method == .get ? LoginPage.safeNext(request.target) : nil
            return secured(.redirect(to: "/console/login" + URLEncoding.query([("next", next)]), status: .seeOther))
        } catch CloudStoreError.accessDenied(let reason) {
            throw ConsoleError.forbidden(reason + ".")
        }
        let cookies = configuration.cookies(for: request)
        let notice = Notice.existing(in: request, openedBy: actions.store, cookies)
        let console = ConsoleRequest(
            http: request, identity: operatorRequest.identity, csrfToken: operatorRequest.csrfToken, form: form, notice: notice)
        let answer: ConsoleAnswer
        var target: OperatorTarget?
        do {
            // The store's decision, before the page runs: a refusal is the console's error page.
            let requested = try OperatorTarget(request)
            target = requested
            try operatorRequest.access.check(needs.route, on: requested)
            answer = try handler(console)
        } catch {
            let mapped = ConsoleError(error)
            // A refusal (a page, record or zone that is not there) stays in the console, with its
            // navigation; a server failure goes on to the error middleware, which logs it.
            guard mapped.status.code < 500 else { throw mapped }
            var page = ErrorPage.page(for: mapped, requestID: request.requestID)
            page.template = "console.error"
            answer = .page(page)
        }
        switch answer {
        case .page(var page):
            page.context["operatorName"] = operatorRequest.identity.operatorName
            offerOnlyAllowed(on: &page, operatorRequest.access, posting: needs.post, target)
            page.context["csrfToken"] = operatorRequest.csrfToken ?? ""
            page.context["csrfField"] = Self.csrfField
            page.context["timeZoneCookie"] = Formatting.timeZoneCookie(cookies)
            offerUsers(on: &page)
            warnOfSchemaRefusals(on: &page, as: operatorRequest.identity)
            if let notice {
                // A page that shows the notice beside what changed says so (`noticePlaced`).
                if page.context["noticePlaced"] == nil { page.context["notice"] = notice.context }
                page.cookies.append(Notice.clearingCookie(cookies))
            }
            page.hasInlineScript = true
            var response = try pages.response(page)
            response.headers["Cache-Control"] = "no-store"
            return response
        case .redirect(let path, let next):
            var response = HTTPResponse.redirect(to: path, status: .seeOther)
            if let next { response.headers.add(name: "Set-Cookie", value: next.cookie(sealedBy: actions.store, cookies)) }
            return secured(response)
        case .response(let response):
            return secured(response)
        }
    }

    /// The console's headers on a redirect or a download: no framing, no sniffing, no caching.
    private func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        PageRenderer.addSecurityHeaders(to: &response, carriesTokens: false)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// Leaves out of `page` what the operator may not do: the bar's tabs they may not read, the
    /// console's links they may not follow, and (by the frame's `readOnly`) the page's forms
    /// that post, when they may not post here. The store refuses them all the same.
    private func offerOnlyAllowed(on page: inout Page, _ access: OperatorAccess, posting: OperatorPermission, _ target: OperatorTarget?) {
        guard access != .everything else { return }
        page.context["readOnly"] = target.map { !access.allows(posting, on: $0) } ?? true
        page.context["hidesOperators"] = !access.allows(.reads(.operators))
        page.context["hidesManagementTokens"] = !access.allows(.reads(.managementTokens))
        page.context["hidesAudit"] = !access.allows(.reads(.logs))
        page.context["hidesBackups"] = !access.allows(.reads(.backups))
        guard var bar = page.context["bar"] as? [String: Any], let tabs = bar["tabs"] as? [[String: Any]] else { return }
        bar["tabs"] = tabs.filter { tab in
            guard let section = (tab["section"] as? String).flatMap(ConsoleSection.init(rawValue:)) else { return true }
            var tabTarget = target ?? OperatorTarget()
            tabTarget.database = section.usesDatabase ? (tab["database"] as? String).flatMap(DatabaseScope.init(rawValue:)) : nil
            return access.allows(section.pages.needs(.get), on: tabTarget)
        }
        page.context["bar"] = bar
    }

    /// The most users the bar's "act as user" box offers by name; more can still be typed.
    static let offeredUsers = 200

    /// Fills the bar's "act as user" box, where the page has one that can be used, with the
    /// container's users to pick from: the sign-in name, then the record name shortened.
    private func offerUsers(on page: inout Page) {
        guard var bar = page.context["bar"] as? [String: Any], bar["needsUser"] as? Bool == true, bar["canActAsUser"] as? Bool == true,
            let container = (bar["container"] as? String).flatMap({ try? ContainerIdentifier($0) }),
            let names = try? actions.userNames(container)
        else { return }
        bar["users"] = names.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(Self.offeredUsers).map { recordName, name in
            ["name": name, "short": UserNames.short(recordName)]
        }
        bar["hasUsers"] = !names.isEmpty
        page.context["bar"] = bar
    }

    /// The zones of the location's database, for the bar's zone picker, each with its owner in
    /// the shared database; none when they cannot be listed (a private database without a user,
    /// or in production), which the page says on its own.
    func zoneNames(_ location: ConsoleLocation, _ request: ConsoleRequest) -> [ZonePick] {
        guard location.database == .public || location.user != nil else { return [] }
        guard
            let zones = try? actions.zones(
                in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
        else { return [] }
        guard location.database == .shared else { return zones.zones.map { ZonePick(name: $0.zoneName) } }
        let names = UserNames(try? location.identifier, actions)
        var picks = zones.zones.map {
            ZonePick(name: $0.zoneName, owner: $0.ownerRecordName, ownerName: names.name(of: $0.ownerRecordName))
        }
        // The zone in the address, though not shared with this user, still by its owner's name.
        if let owner = location.zoneOwner, !picks.contains(where: { $0.name == location.zone && $0.owner == owner }) {
            picks.insert(ZonePick(name: location.zone, owner: owner, ownerName: names.name(of: owner)), at: 0)
        }
        return picks
    }

    /// `location`, or in the shared database where it names no zone's owner, the first zone
    /// shared with its user: there every zone is another user's, and none is the default.
    func settled(_ location: ConsoleLocation, _ request: ConsoleRequest) -> ConsoleLocation {
        guard location.database == .shared, location.zoneOwner == nil, let first = zoneNames(location, request).first else {
            return location
        }
        var settled = location
        (settled.zone, settled.zoneOwner) = (first.name, first.owner)
        return settled
    }

    /// Runs a change and goes back to `path` with its outcome as a notice: the success message,
    /// or the reason it was refused. A server failure still becomes the error page.
    /// - Parameter success: where to go instead when the change succeeds.
    func attempt(back path: String, success: String? = nil, _ change: () throws -> String) throws -> ConsoleAnswer {
        do {
            return .redirect(success ?? path, .success(try change()))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .redirect(path, .failure(mapped.description))
        }
    }
}
