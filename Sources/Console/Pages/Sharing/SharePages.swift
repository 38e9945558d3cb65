import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// Sharing in one environment: every share with its owner, zone, what it shares, its short
/// GUID and public permission, and each participant with their permission and whether they
/// accepted. In development the operator can take a participant out of a share, or delete a
/// share, as its owner would; in production shares belong to their users.
///
/// Under `/console/containers/C/ENV/sharing`: `GET`; `POST /participants/remove` and
/// `POST /delete` (each after a confirmation page).
struct SharePages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.shares"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/sharing"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base + "/participants/remove") { request in try pages.removeParticipant(request) },
            .post(base + "/delete") { request in try pages.deleteShare(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let editable = location.environment == .development
        let answer = try actions.shares(in: try location.identifier, environment: location.environment, as: request.identity)
        let shares = answer.shares.map { share -> [String: Any] in
            let owner = share.ownerName ?? share.owner
            let zone = share.zoneName
            let name = share.recordName
            let which = [["name": "owner", "value": owner], ["name": "zone", "value": zone], ["name": "share", "value": name]]
            return [
                "owner": owner, "zone": zone, "name": name, "shortGUID": share.shortGUID,
                "what": share.rootRecordName.map { "record \($0) and the records under it" } ?? "the whole zone",
                "publicPermission": Self.permission(share.publicPermission),
                "modified": Formatting.time(share.modified, in: timeZone),
                "fields": which, "editable": editable,
                "participants": share.participants.map { participant -> [String: Any] in
                    let status = participant.acceptanceStatus
                    // An invitation by address no user has accepted yet has only its address.
                    let pending = participant.userRecordName == nil
                    let user = participant.name ?? participant.userRecordName ?? participant.emailAddress ?? ""
                    return [
                        "user": user, "permission": Self.permission(participant.permission),
                        "type": participant.type == "PUBLIC_USER" ? "joined by link" : "invited",
                        "status": status.lowercased(), "isRemoved": status == "REMOVED",
                        "removable": editable && status != "REMOVED" && !pending, "fields": which + [["name": "user", "value": user]],
                    ]
                },
            ]
        }
        let context: [String: Any] = [
            "bar": location.bar(.sharing), "shares": shares, "editable": editable,
            "removeAction": location.path(.sharing, "/participants/remove"), "deleteAction": location.path(.sharing, "/delete"),
            "timeZone": timeZone.identifier,
        ]
        return .page(Page("console.shares", context: context))
    }

    /// A permission as the page says it.
    private static func permission(_ value: String?) -> String {
        switch value {
        case "READ_ONLY": "read only"
        case "READ_WRITE": "read and write"
        default: "none"
        }
    }

    /// The share a form names: its owner, zone and record name, and the same as hidden fields.
    private struct Named {
        let owner: String
        let zone: String
        let share: String
        let fields: [[String: String]]

        init(_ request: ConsoleRequest) {
            (owner, zone, share) = (request.field("owner") ?? "", request.field("zone") ?? "", request.field("share") ?? "")
            fields = [["name": "owner", "value": owner], ["name": "zone", "value": zone], ["name": "share", "value": share]]
        }
    }

    private func removeParticipant(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let named = Named(request)
        let (owner, zone, share, user) = (named.owner, named.zone, named.share, request.field("user") ?? "")
        let names = UserNames(try location.identifier, actions)
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Remove \(names.label(user)) from share \(share)?",
                    message:
                        "\(names.name(of: user) ?? user) loses what \(names.name(of: owner) ?? owner)'s share \(share) in zone \(zone) gives them at once; the zone leaves their shared "
                        + "database, and resolving the share tells them they were removed. The owner may invite them again.",
                    action: request.http.path, button: "Remove participant", fields: named.fields + [["name": "user", "value": user]],
                    cancelURL: location.path(.sharing), bar: location.bar(.sharing)))
        }
        return try console.attempt(back: location.path(.sharing)) {
            _ = try actions.removeShareParticipant(
                user, share: share, zone: zone, owner: owner, in: try location.identifier, environment: location.environment,
                as: request.identity)
            return "\(names.label(user)) was removed from share \(share)."
        }
    }

    private func deleteShare(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let named = Named(request)
        let (owner, zone, share) = (named.owner, named.zone, named.share)
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Delete share \(share)?",
                    message: "Everyone in \(owner)'s share \(share) in zone \(zone) loses what it gives them at once. "
                        + "The shared records stay in \(owner)'s private database.",
                    action: request.http.path, button: "Delete share", fields: named.fields,
                    cancelURL: location.path(.sharing), bar: location.bar(.sharing)))
        }
        return try console.attempt(back: location.path(.sharing)) {
            _ = try actions.deleteShare(
                share, zone: zone, owner: owner, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Share \(share) was deleted."
        }
    }
}
