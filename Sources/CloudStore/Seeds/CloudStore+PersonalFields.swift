import Crypto

extension CloudStore {
    // MARK: - Personal fields

    /// The fields of a container marked personal.
    public func personalFields(_ container: ContainerIdentifier) throws -> PersonalFields {
        guard try self.container(container) != nil else { throw CloudStoreError.notFound("Container \(container) does not exist") }
        return try seedStorage.personalFields(in: container)
    }

    /// Marks a field personal, or takes the mark off: the values of a personal field are
    /// replaced by fakes when records are copied from production to development. The mark is
    /// the container's, for both environments. Audited.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when neither environment's schema has the
    ///   field; ``CloudStoreError/badRequest(_:)`` for a reference or an asset, which no fake
    ///   can stand for (a reference must keep pointing at its record).
    public func setPersonal(_ personal: Bool, _ field: PersonalField, _ container: ContainerIdentifier, by actor: OperatorIdentity? = nil)
        throws
    {
        try authorize(
            actor, .changes(.schema, environment: .development), on: OperatorTarget(container: container, environment: .development))
        let definition = try Environment.allCases.lazy.compactMap { environment in
            try self.schema(container, environment).recordType(field.recordType)?.field(field.field)
        }.first
        guard let definition, !definition.isSystem else {
            throw CloudStoreError.notFound("The schema has no field '\(field.field)' of record type '\(field.recordType)'")
        }
        if personal, [.reference, .asset].contains(definition.type.scalar) {
            throw CloudStoreError.badRequest(
                "\(field) is a \(definition.type): only values with a fake of their own (text, numbers, times, locations, bytes) are personal"
            )
        }
        _ = try auditedCatalogChange(
            actor, personal ? "schema.field.personal" : "schema.field.not-personal", container: container.rawValue,
            environment: Environment.development.rawValue, target: field.description
        ) { try seedStorage.setPersonal(personal, field, in: container) }
    }

    /// The key personal values of `container` are masked under: its own, derived from the
    /// server's secret, so that a fake made in one container says nothing of another's values.
    public func maskingKey(of container: ContainerIdentifier) throws -> [UInt8] {
        let key = OpaqueTokenSigner.derivedKey(secret: try catalog.secret(), label: "cumulus.masking." + container.rawValue)
        return key.withUnsafeBytes { Array($0) }
    }
}
