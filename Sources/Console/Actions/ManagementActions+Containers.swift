import CloudKitWire
import CloudStore

extension ManagementActions {
    /// Every container, with records, record bytes and file bytes per environment (kept by the
    /// store as it writes: nothing is counted on the way).
    public func containers(as actor: OperatorIdentity) throws -> JSONValue {
        let containers = try store.containers()
        return ["containers": .array(try containers.map { try containerJSON($0) })]
    }

    /// Creates a container.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for an identifier not of the form
    ///   `iCloud.…`, ``CloudStoreError/exists(_:)`` when it exists.
    public func createContainer(_ identifier: String, as actor: OperatorIdentity) throws -> JSONValue {
        try containerJSON(try store.createContainer(try ContainerIdentifier(identifier), by: actor))
    }

    /// One container.
    public func container(_ identifier: String, as actor: OperatorIdentity) throws -> JSONValue {
        guard let info = try store.container(try ContainerIdentifier(identifier)) else {
            throw CloudStoreError.notFound("Container \(identifier) does not exist")
        }
        return try containerJSON(info)
    }

    private func containerJSON(_ info: ContainerInfo) throws -> JSONValue {
        let usage = try store.usage(of: info.identifier)
        var environments = JSONObject()
        for environment in Environment.allCases {
            let figures = usage[environment] ?? EnvironmentUsage(records: 0, recordBytes: 0, fileBytes: 0)
            environments[environment.rawValue] = [
                "records": .integer(figures.records), "recordBytes": .integer(figures.recordBytes),
                "fileBytes": .integer(figures.fileBytes),
            ]
        }
        return ["identifier": .string(info.identifier.rawValue), "created": Self.time(info.created), "environments": .object(environments)]
    }
}
