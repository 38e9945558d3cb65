import CloudKitWire
import CloudStore
import HTTPServer

/// Resetting development, as CloudKit Console's "Reset Environment": what will be deleted,
/// counted, and the container identifier typed to confirm, with a seed to restore instead of
/// leaving development empty. Beside it, the seeds (saved, listed, deleted) and a copy of
/// production's records into development with personal fields masked. Production is never reset.
///
/// Under `/console/containers/C/ENV/reset`: `GET`, `POST` (reset, development only),
/// `POST /seeds`, `POST /seeds/S/delete`, `POST /copy`.
struct ResetPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.reset"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/reset"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base) { request in try pages.reset(request) },
            .post(base + "/seeds") { request in try pages.saveSeed(request) },
            .post(base + "/seeds/:seed/delete") { request in try pages.deleteSeed(request) },
            .post(base + "/copy") { request in try pages.copy(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        var context: [String: Any] = ["bar": location.bar(.reset), "container": location.container, "isProduction": false]
        guard location.environment == .development else {
            context["isProduction"] = true
            context["developmentURL"] = ConsoleLocation(container: location.container).path(.reset)
            return .page(Page("console.reset", context: context))
        }
        let contents = try actions.developmentContents(of: try location.identifier, as: request.identity)
        for (key, count, noun) in [
            ("records", contents.records, "record"), ("zones", contents.zones, "zone"),
            ("recordTypes", contents.recordTypes, "record type"),
            ("productionRecordTypes", contents.productionRecordTypes, "record type"),
            ("sessions", contents.sessions, "signed-in session"),
        ] {
            context[key] = Formatting.count(count)
            context[key + "Noun"] = Formatting.noun(count, noun)
        }
        context["action"] = location.path(.reset)
        try addSeedsAndCopy(to: &context, location, request)
        return .page(Page("console.reset", context: context))
    }

    private func reset(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        guard location.environment == .development else {
            throw ConsoleError.badRequest("Only development is reset; production changes only by deploying.")
        }
        var records = location
        records.database = .public
        return try console.attempt(back: location.path(.reset), success: records.path(.records)) {
            let outcome = try actions.resetDevelopment(
                of: try location.identifier, confirmation: request.field("confirm") ?? "", seed: request.field("seed"), as: request.identity
            )
            let deleted = outcome.deleted
            return
                "Development was reset: \(Formatting.counted(deleted.records, "record")) and \(Formatting.counted(deleted.zones, "zone")) deleted, "
                + "\(Formatting.counted(deleted.sessions, "signed-in session")) ended; its schema is production's"
                + (outcome.seed.map { "; seed \($0) restored: \(Formatting.counted(outcome.restored ?? 0, "record"))." } ?? ".")
        }
    }
}
