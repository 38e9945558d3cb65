import CloudStore

extension ConsolePages {
    /// Puts the schema guard in a container page's bar: how many production calls were refused
    /// in the last day for want of a record type, field or index development has, the gap that
    /// refused most, its latest request ids, and a link to a deployment of exactly what they
    /// need. Shown on every page of the container, within the request log's flush of the call.
    func warnOfSchemaRefusals(on page: inout Page, as identity: OperatorIdentity) {
        guard var bar = page.context["bar"] as? [String: Any], let container = bar["container"] as? String,
            let identifier = try? ContainerIdentifier(container),
            let guarded = try? actions.schemaGuard(of: identifier, as: identity), let first = guarded.findings.first
        else { return }
        var location = ConsoleLocation(container: container)
        location.environment = .production
        let others = guarded.findings.count - 1
        bar["schemaGuard"] = [
            "summary": "\(Formatting.counted(Int64(guarded.refusals), "production call")) refused: \(first.description) not deployed"
                + (others > 0 ? ", and \(others) more" : ""),
            "latest": first.latestRequestIDs.map { ["requestID": $0] },
            "deployURL": location.path(.deploy, query: [("filling", guarded.findings.map(\.gap).joined(separator: ","))]),
        ]
        page.context["bar"] = bar
    }
}
