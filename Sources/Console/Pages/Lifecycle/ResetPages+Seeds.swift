import CloudKitWire
import CloudStore
import Foundation

extension ResetPages {
    /// The seeds, the types a seed or a copy can take, and the personal fields a copy masks.
    func addSeedsAndCopy(to context: inout [String: Any], _ location: ConsoleLocation, _ request: ConsoleRequest) throws {
        let container = try location.identifier
        let timeZone = Formatting.timeZone(of: request.http)
        let seeds = try actions.seeds(of: container, as: request.identity).seeds
        context["seeds"] = seeds.map { seed -> [String: Any] in
            [
                "name": seed.name, "selection": seed.selection, "database": seed.database,
                "records": Formatting.counted(seed.records, "record"), "blobs": Formatting.counted(seed.blobs, "asset file"),
                "created": Formatting.time(seed.created, in: timeZone), "createdBy": seed.createdBy,
                "deleteAction": location.path(.reset) + "/seeds/" + URLEncoding.component(seed.name) + "/delete",
            ]
        }
        context["hasSeeds"] = !seeds.isEmpty
        context["seedChoices"] = seeds.map { ["name": $0.name, "label": "\($0.name) (\(Formatting.counted($0.records, "record")))"] }
        let development = SchemaView(try actions.schema(of: container, environment: .development, as: request.identity))
        context["developmentTypes"] = development.recordTypes.map { type in
            ["name": type.name, "id": "seed-type-" + RecordForm.identifier(type.name)]
        }
        context["hasDevelopmentTypes"] = !development.recordTypes.isEmpty
        let production = SchemaView(try actions.schema(of: container, environment: .production, as: request.identity))
        let personal = try actions.personalFields(of: container, as: request.identity)
        context["productionTypes"] = production.recordTypes.map { type -> [String: Any] in
            let marked = type.userFields.map(\.name).filter { personal.contains($0, of: type.name) }
            return [
                "name": type.name, "id": "copy-type-" + RecordForm.identifier(type.name),
                "personal": marked.isEmpty ? "no personal fields" : "personal: " + marked.joined(separator: ", "),
            ]
        }
        context["hasProductionTypes"] = !production.recordTypes.isEmpty
        context["seedAction"] = location.path(.reset) + "/seeds"
        context["copyAction"] = location.path(.reset) + "/copy"
        context["schemaURL"] = location.path(.schema)
    }

    func saveSeed(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try developmentOnly(request)
        return try console.attempt(back: location.path(.reset) + "#seeds") {
            let seed = try actions.saveSeed(
                named: request.field("name") ?? "", of: try location.identifier, recordTypes: request.fields("type"), query: nil,
                as: request.identity)
            return "Seed \(seed.name) saved: \(Formatting.counted(seed.records, "record")) of \(seed.recordTypes.joined(separator: ", ")), "
                + "\(Formatting.counted(seed.blobs, "asset file"))."
        }
    }

    func deleteSeed(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try developmentOnly(request)
        let name = request.path("seed")
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Delete this seed?",
                    message: "Its records and asset files are forgotten; development is not touched. It cannot be undone.",
                    items: [name], action: request.http.path, button: "Delete seed", fields: [], cancelURL: location.path(.reset) + "#seeds"
                ))
        }
        return try console.attempt(back: location.path(.reset) + "#seeds") {
            _ = try actions.deleteSeed(named: name, of: try location.identifier, as: request.identity)
            return "Seed \(name) deleted."
        }
    }

    func copy(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try developmentOnly(request)
        return try console.attempt(back: location.path(.reset) + "#copy") {
            let copy = try actions.copyToDevelopment(
                of: try location.identifier, recordTypes: request.fields("type"), query: nil, as: request.identity)
            return "Copied \(Formatting.counted(copy.copied, "record")) from production (\(copy.unchanged) unchanged); "
                + "\(Formatting.counted(copy.maskedValues, "personal value")) masked"
                + (copy.maskedFields.isEmpty ? "" : " in \(copy.maskedFields.joined(separator: ", "))") + "."
        }
    }

    private func developmentOnly(_ request: ConsoleRequest) throws -> ConsoleLocation {
        let location = try ConsoleLocation(request)
        guard location.environment == .development else {
            throw ConsoleError.badRequest("Seeds and copies go into development only.")
        }
        return location
    }
}
