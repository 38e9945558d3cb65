import CloudStore
import HTTPServer

extension ManagementAPI {
    /// Records, as the data API's query, lookup and modify bodies take them, and their export.
    static let recordRoutes: [ManagementRoute] = [
        .json(.post, "/containers/:container/:environment/:database/records/query", "queryRecords", needs: .reads(.data)) {
            actions, input, actor in
            try actions.queryRecords(
                input.body, in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: input.query("user"), as: actor)
        },
        .json(.get, "/containers/:container/:environment/:database/records/browse", "browseRecords", needs: .reads(.data)) {
            actions, input, actor in
            try actions.browseRecords(
                zone: input.query("zone") ?? ZoneID.defaultZoneName, owner: input.query("owner"), recordType: input.query("type"),
                after: input.query("after"),
                limit: Int(input.query("limit") ?? "") ?? CloudDatabase.maximumListing, in: try input.container(),
                environment: try input.environment(), database: try input.database(), user: input.query("user"), as: actor)
        },
        // A file for an ASSET field: the body is the file; the answer's receipt goes into a records/modify.
        .json(
            .post, "/containers/:container/:environment/:database/records/assets", "uploadAsset", needs: .changes(.data), body: .raw,
            options: RouteOptions(maxBodyBytes: ConsolePages.maximumFormBytes)
        ) { actions, input, actor in
            guard let recordType = input.query("recordType"), let field = input.query("field") else {
                throw CloudStoreError.badRequest("Name the record type and the ASSET field: ?recordType=…&field=…")
            }
            return try actions.uploadAsset(
                input.request.body, recordType: recordType, field: field, recordName: input.query("recordName"),
                zone: input.query("zone") ?? ZoneID.defaultZoneName, owner: input.query("owner"), in: try input.container(),
                environment: try input.environment(), database: try input.database(), user: input.query("user"), as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/:database/records/lookup", "lookupRecords", needs: .reads(.data)) {
            actions, input, actor in
            try actions.lookupRecords(
                input.body, in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: input.query("user"), as: actor)
        },
        .json(
            .post, "/containers/:container/:environment/:database/records/modify", "modifyRecords", needs: .changes(.data),
            options: RouteOptions(maxBodyBytes: maximumSchemaBytes)
        ) { actions, input, actor in
            try actions.modifyRecords(
                input.body, in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: input.query("user"), as: actor
            ).json
        },
        .response(.post, "/containers/:container/:environment/:database/records/export", "exportRecords", needs: .reads(.data), body: .json)
        {
            api, input, actor in
            let formatName = input.query("format") ?? "json"
            guard let format = RecordExport.Format(rawValue: formatName) else {
                throw CloudStoreError.badRequest("Unknown export format '\(formatName)': use json or csv")
            }
            let export = try api.actions.exportRecords(
                input.body, format: format, in: try input.container(), environment: try input.environment(),
                database: try input.database(), user: input.query("user"), as: actor)
            return file(export.bytes, contentType: export.contentType)
        },
    ]
}
