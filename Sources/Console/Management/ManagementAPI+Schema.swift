import CloudStore
import HTTPServer

extension ManagementAPI {
    /// An environment's schema: read as JSON or `.ckdb` text, imported, validated and edited.
    static let schemaRoutes: [ManagementRoute] = [
        .response(.get, "/containers/:container/:environment/schema", "schema", needs: .reads(.schema), body: .raw) { api, input, actor in
            if input.query("format") == "ckdb" {
                return .text(try api.actions.schemaText(of: try input.container(), environment: try input.environment(), as: actor))
            }
            // The JSON answer reads a body as every JSON route does.
            let input = try ManagementInput(input.request, jsonBody: true, actions: api.actions)
            let schema = try api.actions.schema(of: try input.container(), environment: try input.environment(), as: actor)
            return .json(schema.json.serialized())
        },
        .json(
            .put, "/containers/:container/:environment/schema", "importSchema", needs: .changes(.schema), body: .raw, options: schemaOptions
        ) {
            actions, input, actor in
            let text = try input.text()
            // A dry run answers what the import would change, and changes nothing.
            if input.query("dryRun") == "true" {
                return try actions.previewSchemaImport(text, into: try input.container(), environment: try input.environment(), as: actor)
                    .json
            }
            return try actions.importSchema(text, into: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(
            .post, "/containers/:container/:environment/schema/validate", "validateSchema", needs: .reads(.schema), body: .raw,
            options: schemaOptions
        ) {
            actions, input, actor in
            let text = try input.text()
            return try actions.validateSchema(text, for: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.post, "/containers/:container/:environment/record-types", "createRecordType", needs: .changes(.schema), status: .created) {
            actions, input, actor in
            let name = try input.string("name")
            return try actions.createRecordType(name, in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(
            .post, "/containers/:container/:environment/record-types/:type/fields", "addField", needs: .changes(.schema), status: .created
        ) {
            actions, input, actor in
            let name = try input.string("name")
            let type = try input.string("type")
            let indexes = try input.strings("indexes")
            return try actions.addField(
                name, type: type, indexes: indexes, to: input.path("type"), in: try input.container(), environment: try input.environment(),
                as: actor
            ).json
        },
        .json(.put, "/containers/:container/:environment/record-types/:type/fields/:field/indexes", "setIndexes", needs: .changes(.schema))
        { actions, input, actor in
            let indexes = try input.strings("indexes")
            return try actions.setIndexes(
                indexes, of: input.path("field"), recordType: input.path("type"), in: try input.container(),
                environment: try input.environment(), as: actor
            ).json
        },
        .json(.put, "/containers/:container/:environment/record-types/:type/indexes", "setTypeIndexes", needs: .changes(.schema)) {
            actions, input, actor in
            guard let object = input.body["indexes"]?.objectValue else {
                throw CloudStoreError.badRequest("indexes must be an object of field names to lists of indexes")
            }
            var indexes: [String: [String]] = [:]
            for (field, kinds) in object { indexes[field] = (kinds.arrayValue ?? []).compactMap(\.stringValue) }
            return try actions.setIndexes(
                indexes, recordType: input.path("type"), in: try input.container(), environment: try input.environment(), as: actor
            ).json
        },
        // What deleting the type (or, with `?field=`, one of its fields) would remove, counted first.
        .json(.get, "/containers/:container/:environment/record-types/:type/deletion", "schemaDeletionImpact", needs: .reads(.schema)) {
            actions, input, actor in
            try actions.deleteFromSchema(
                field: input.query("field"), of: input.path("type"), confirmed: false, in: try input.container(),
                environment: try input.environment(), as: actor
            ).json
        },
        .json(.delete, "/containers/:container/:environment/record-types/:type", "deleteRecordType", needs: .changes(.schema)) {
            actions, input, actor in
            try actions.deleteFromSchema(
                field: nil, of: input.path("type"), confirmed: true, in: try input.container(), environment: try input.environment(),
                as: actor
            ).json
        },
        .json(.delete, "/containers/:container/:environment/record-types/:type/fields/:field", "deleteField", needs: .changes(.schema)) {
            actions, input, actor in
            try actions.deleteFromSchema(
                field: input.path("field"), of: input.path("type"), confirmed: true, in: try input.container(),
                environment: try input.environment(), as: actor
            ).json
        },
    ]

    /// A schema's text may be as large as ``maximumSchemaBytes``.
    private static let schemaOptions = RouteOptions(maxBodyBytes: maximumSchemaBytes)
}
