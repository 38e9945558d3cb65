import CloudKitWire
import CloudStore
import HTTPServer

/// The server's backups, server-wide: the list in the backup location (time, size, whether the
/// manifest matches), a backup taken now, a download (streamed) and a delete (after a
/// confirmation).
///
/// `GET /console/backups`, `POST` (take one), `GET /console/backups/B/download`,
/// `POST /console/backups/B/delete`; a zone or a type restored from a backup (see
/// `BackupsPages+RestoreFromBackup.swift`).
struct BackupsPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.backups", "console.restore-from-backup"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [
            .get("/backups") { request in try pages.list(request) },
            .post("/backups") { request in try pages.take(request) },
            .get("/backups/:backup/download") { request in try pages.download(request) },
            .post("/backups/:backup/delete") { request in try pages.delete(request) },
            .get("/containers/:container/:environment/:database/restore-from-backup") { request in
                try pages.restoreFromBackupForm(request)
            },
            .post("/containers/:container/:environment/:database/restore-from-backup") { request in try pages.restoreFromBackup(request) },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let timeZone = Formatting.timeZone(of: request.http)
        let answer: BackupsView
        do {
            answer = try actions.backups(as: request.identity)
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .page(Page("console.backups", context: ["problem": mapped.description]))
        }
        let backups = answer.backups.map { backup -> [String: Any] in
            let path = "/console/backups/" + URLEncoding.component(backup.name)
            return [
                "name": backup.name, "created": Formatting.time(backup.created, in: timeZone), "size": Formatting.bytes(backup.bytes),
                "manifest": backup.manifestOK.map { $0 ? "ok" : "does not match" } ?? "not checked",
                "manifestBad": backup.manifestOK == false, "downloadURL": path + "/download", "deleteAction": path + "/delete",
            ]
        }
        let schedule =
            answer.intervalSeconds.map { "every " + Self.interval($0) } ?? "only when asked for (here or with cumulus backups take)"
        let context: [String: Any] = [
            "backups": backups, "hasBackups": !backups.isEmpty, "location": answer.location, "schedule": schedule,
            "keep": Formatting.counted(answer.keep, "backup"),
        ]
        return .page(Page("console.backups", context: context))
    }

    /// `6 hours`, `30 minutes`, `1 day`: the largest unit that divides the interval.
    static func interval(_ seconds: Int64) -> String {
        let (count, unit): (Int64, String) =
            seconds % 86_400 == 0 ? (seconds / 86_400, "day") : seconds % 3600 == 0 ? (seconds / 3600, "hour") : (seconds / 60, "minute")
        return Formatting.counted(count, unit)
    }

    private func take(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        try console.attempt(back: "/console/backups") {
            let backup = try actions.takeBackup(as: request.identity)
            return "Backup \(backup.name) taken (\(Formatting.bytes(backup.bytes)))."
        }
    }

    private func download(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let name = request.path("backup")
        return .response(ManagementAPI.backupDownload(name, try actions.downloadBackup(name, as: request.identity)))
    }

    private func delete(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let name = request.path("backup")
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Delete this backup?", message: "The file is removed from the backup location. It cannot be undone.",
                    items: [name],
                    action: request.http.path, button: "Delete backup", fields: [], cancelURL: "/console/backups"))
        }
        return try console.attempt(back: "/console/backups") {
            _ = try actions.deleteBackup(name, as: request.identity)
            return "Backup \(name) deleted."
        }
    }
}
