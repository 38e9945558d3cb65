import CloudKitWire
import CloudStore
import Foundation

/// The dialog restoring a zone or a record type of a database from one of the server's backups,
/// on the running server: the backup, the zone and the type chosen, what would change shown on
/// the confirm step, applied once confirmed.
///
/// `GET /console/containers/C/ENV/DB/restore-from-backup` (`?user=…`, `?backup=…&zone=…`),
/// `POST` the same.
extension BackupsPages {
    func restoreFromBackupForm(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return .page(
            restoreFromBackupPage(
                location, request, backup: request.query("backup"), zone: request.query("zone"), type: request.query("type"), error: nil))
    }

    /// The dialog with `backup`, `zone` and `type` chosen, and `error` when the last try was refused.
    private func restoreFromBackupPage(
        _ location: ConsoleLocation, _ request: ConsoleRequest, backup: String?, zone: String?, type: String?, error: ConsoleError?
    ) -> Page {
        var context = HistoryPages(console: console).restoreDialog(location, request, zone: zone, type: type)
        context["action"] = HistoryPages.formPath(location, "/restore-from-backup")
        context["restorePointURL"] = HistoryPages.path(location, "/restore-point", query: [("zone", zone), ("type", type)])
        do {
            let backups = try actions.backups(as: request.identity).backups
            context["backupChoices"] = backups.map { ["name": $0.name, "selected": $0.name == backup] }
            if backups.isEmpty { context["noBackups"] = "There is no backup yet: take one on the Backups page." }
        } catch {
            context["noBackups"] = ConsoleError(error).description
        }
        return HistoryPages.dialogPage("console.restore-from-backup", context, error: error)
    }

    func restoreFromBackup(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let backup = request.field("backup").flatMap { $0.isEmpty ? nil : $0 }
        let zone = request.field("zone").flatMap { $0.isEmpty ? nil : $0 }
        let type = request.field("type").flatMap { $0.isEmpty ? nil : $0 }
        let dialog = HistoryPages.path(location, "/restore-from-backup", query: [("backup", backup), ("zone", zone), ("type", type)])
        do {
            if let reason = HistoryPages(console: console).blocked(location) { throw ConsoleError.badRequest(reason) }
            guard let backup else { throw ConsoleError.badRequest("Choose the backup to restore from.") }
            func run(dryRun: Bool) throws -> RestoreView {
                try actions.restoreFromBackup(
                    backup, in: try location.identifier, environment: location.environment, database: location.database,
                    user: location.user, zone: zone, type: type, dryRun: dryRun, as: request.identity)
            }
            let scope = [zone.map { "zone \($0)" }, type.map { "the \($0) records" }].compactMap { $0 }.joined(separator: ", ")
            let database =
                "the \(location.environment.rawValue) \(location.database) database\(location.user.map { " of \($0)" } ?? "")"
            guard request.isConfirmed else {
                let preview = try run(dryRun: true)
                let changes = preview.restored + preview.reverted + preview.removed
                guard changes > 0 || !preview.zonesRestored.isEmpty else {
                    return .redirect(dialog, .success("Nothing to restore: \(scope) of \(database) is as \(backup) holds it."))
                }
                return .page(
                    ConfirmPage.page(
                        title: "Restore \(scope) from \(backup)?",
                        message: "This makes \(scope) of \(database) what the backup holds: "
                            + "\(Formatting.counted(Int64(preview.restored), "record")) missing now will be restored, "
                            + "\(Formatting.counted(Int64(preview.reverted), "record")) changed since will get back "
                            + "\(preview.reverted == 1 ? "its" : "their") version in the backup, "
                            + "\(Formatting.counted(Int64(preview.removed), "record")) the backup does not hold will be deleted"
                            + (preview.zonesRestored.isEmpty
                                ? "" : ", and zone \(preview.zonesRestored.joined(separator: ", ")) made again")
                            + ". Each is a new change that clients receive; the rest of the database is untouched. What it replaces "
                            + "is kept in the history and the trash." + (preview.sample.isEmpty ? "" : " Some of the records:"),
                        items: preview.sample, action: request.http.path, button: "Restore \(Formatting.counted(Int64(changes), "record"))",
                        fields: HistoryPages.userFields(location) + [
                            ["name": "backup", "value": backup], ["name": "zone", "value": zone ?? ""],
                            ["name": "type", "value": type ?? ""],
                        ],
                        cancelURL: dialog, bar: location.bar(.zones)))
            }
            let outcome = try run(dryRun: false)
            return .redirect(
                location.path(.zones),
                .success(
                    "Restored \(scope) of \(database) from \(backup): \(outcome.restored) restored, \(outcome.reverted) reverted, "
                        + "\(outcome.removed) deleted."))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .page(restoreFromBackupPage(location, request, backup: backup, zone: zone, type: type, error: mapped))
        }
    }
}
