import CloudStore

extension ManagementAPI {
    /// The trash, records' histories, restore points and the history's retention.
    static let historyRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/:environment/:database/trash", "trash", needs: .reads(.data)) { actions, input, actor in
            try actions.trash(
                in: try input.container(), environment: try input.environment(), database: try input.database(), user: input.query("user"),
                zone: input.query("zone"), type: input.query("type"), limit: Int(input.query("limit") ?? "") ?? 1000,
                after: input.query("after"), as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/:database/trash/restore", "restoreTrash", needs: .changes(.data)) {
            actions, input, actor in
            try actions.restoreFromTrash(
                in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: try input.optionalString("user") ?? input.query("user"), zone: try input.optionalString("zone"),
                type: try input.optionalString("type"), records: input.body["records"] == nil ? nil : try input.strings("records"),
                since: try input.optionalString("since"), as: actor
            ).json
        },
        .json(.get, "/containers/:container/:environment/:database/history", "recordHistory", needs: .reads(.data)) {
            actions, input, actor in
            guard let record = input.query("record") else { throw CloudStoreError.badRequest("Name the record: ?record=…") }
            return try actions.recordHistory(
                record, zone: input.query("zone"), in: try input.container(), environment: try input.environment(),
                database: try input.database(), user: input.query("user"), as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/:database/history/revert", "revertRecord", needs: .changes(.data)) {
            actions, input, actor in
            guard let version = input.body["version"]?.int64Value(acceptingNumericString: true) else {
                throw CloudStoreError.badRequest("Name the version to revert to: {\"version\": …}")
            }
            return try actions.revertRecord(
                try input.string("record"), zone: try input.optionalString("zone"), toVersion: version,
                changeTag: try input.optionalString("recordChangeTag"), in: try input.container(), environment: try input.environment(),
                database: try input.database(), user: try input.optionalString("user") ?? input.query("user"), as: actor
            ).json
        },
        .json(.post, "/containers/:container/:environment/:database/restore-point", "restorePoint", needs: .changes(.data)) {
            actions, input, actor in
            try actions.restorePoint(
                in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: try input.optionalString("user") ?? input.query("user"), zone: try input.optionalString("zone"),
                type: try input.optionalString("type"), at: try input.string("at"), dryRun: try input.optionalBool("dryRun") ?? false,
                as: actor
            ).json
        },
        .json(.get, "/containers/:container/:environment/history-retention", "historyRetention", needs: .reads(.data)) {
            actions, input, actor in
            try actions.historyRetention(in: try input.container(), environment: try input.environment(), as: actor).json
        },
        .json(.put, "/containers/:container/:environment/history-retention", "setHistoryRetention", needs: .changes(.data)) {
            actions, input, actor in
            let seconds = input.body["seconds"]
            guard let seconds, seconds.isNull || seconds.int64Value(acceptingNumericString: false) != nil else {
                throw CloudStoreError.badRequest("Give the retention in seconds, or null for the server's default: {\"seconds\": …}")
            }
            return try actions.setHistoryRetention(
                seconds: seconds.int64Value(acceptingNumericString: false), in: try input.container(), environment: try input.environment(),
                as: actor
            ).json
        },
    ]
}
