import CloudStore
import HTTPServer

extension ManagementAPI {
    /// An environment's schema: read as JSON or `.ckdb` text, imported, validated and edited.
    static let schemaRoutes: [ManagementRoute] = [
        .response(.get, "/containers/:container/:environment/schema", "schema", body: .raw) { api, input, actor in
            if input.query("format") == "ckdb" {
                return .text(try api.actions.schemaText(of: input.path("container"), environment: input.path("environment"), as: actor))
            }
            // The JSON answer reads a body as every JSON route does.
            let input = try ManagementInput(input.request, jsonBody: true, actions: api.actions)
            let schema = try api.actions.schema(of: input.path("container"), environment: input.path("environment"), as: actor)
            return .json(schema.serialized())
        },
        .json(.put, "/containers/:container/:environment/schema", "importSchema", body: .raw, options: schemaOptions) { actions, input, actor in
            try actions.importSchema(try input.text(), into: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/schema/validate", "validateSchema", body: .raw, options: schemaOptions) {
            actions, input, actor in
            try actions.validateSchema(try input.text(), for: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/record-types", "createRecordType", status: .created) { actions, input, actor in
            try actions.createRecordType(try input.string("name"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.post, "/containers/:container/:environment/record-types/:type/fields", "addField", status: .created) { actions, input, actor in
            try actions.addField(
                try input.string("name"), type: try input.string("type"), indexes: try input.strings("indexes"),
                to: input.path("type"), in: input.path("container"), environment: input.path("environment"), as: actor)
        },
        .json(.put, "/containers/:container/:environment/record-types/:type/fields/:field/indexes", "setIndexes") { actions, input, actor in
            try actions.setIndexes(
                try input.strings("indexes"), of: input.path("field"), recordType: input.path("type"), in: input.path("container"),
                environment: input.path("environment"), as: actor)
        },
    ]

    /// A schema's text may be as large as ``maximumSchemaBytes``.
    private static let schemaOptions = RouteOptions(maxBodyBytes: maximumSchemaBytes)
}
