import CloudStore

/// The container a first start seeds, so that a newcomer sees data at once: notes and folders in
/// the public database of development, their schema with indexes, and an API token.
struct DemoContainer {
    static let identifier = "iCloud.com.example.Notes"

    /// The API token made for the demo.
    let apiToken: String

    static let schema = """
        DEFINE SCHEMA

            RECORD TYPE Folder (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING QUERYABLE SEARCHABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Note (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___modTime"    TIMESTAMP QUERYABLE SORTABLE,
                "___recordID"   REFERENCE QUERYABLE,
                title           STRING QUERYABLE SEARCHABLE SORTABLE,
                body            STRING SEARCHABLE,
                tags            LIST<STRING> QUERYABLE,
                pinned          INT64 QUERYABLE SORTABLE,
                folder          REFERENCE QUERYABLE,
                place           LOCATION QUERYABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    /// Creates the demo container when the store has no container at all (a first start).
    /// - Returns: the demo, or `nil` when the store already had containers.
    static func seedIfFirstStart(_ store: CloudStore) throws -> DemoContainer? {
        guard try store.containers().isEmpty else { return nil }
        let container = try ContainerIdentifier(identifier)
        try store.createContainer(container)
        try store.importSchema(schema, into: container, .development)
        let database = try store.database(container, .development, .public, as: .operator())
        func folder(_ name: String) -> FieldValue { .reference(Reference(recordName: name, action: .deleteSelf)) }
        let notes: [(String, String, String, [String], Int64, String, Location?)] = [
            (
                "welcome", "Welcome to Cumulus", "A self-hosted CloudKit. These notes live in the public database of development.",
                ["start"], 1, "inbox", nil
            ),
            ("query", "Try a query", "POST records/query with filterBy on title, tags or pinned.", ["api", "start"], 0, "inbox", nil),
            ("schema", "Export the schema", "cumulus export-schema --container iCloud.com.example.Notes", ["cli"], 0, "work", nil),
            (
                "cupertino", "Infinite Loop", "A note with a location, for NEAR queries.", ["places"], 0, "work",
                Location(latitude: 37.3318, longitude: -122.0312)
            ),
            ("groceries", "Groceries", "Milk, bread, apples.", ["home"], 0, "home", nil),
        ]
        var operations = ["inbox": "Inbox", "work": "Work", "home": "Home"].sorted { $0.key < $1.key }.map { name, title in
            RecordOperation(.create, recordName: name, recordType: "Folder", fields: ["name": .string(title)])
        }
        for (name, title, body, tags, pinned, folderName, place) in notes {
            var fields: [String: FieldValue] = [
                "title": .string(title), "body": .string(body), "tags": .list(.string, tags.map { .string($0) }),
                "pinned": .int64(pinned), "folder": folder(folderName),
            ]
            if let place { fields["place"] = .location(place) }
            operations.append(RecordOperation(.create, recordName: name, recordType: "Note", fields: fields))
        }
        _ = try database.modify(ModifyRequest(operations: operations))
        let token = try store.createAPIToken(container, .development, name: "Demo token")
        return DemoContainer(apiToken: token.token)
    }

    /// What the first start prints about the demo.
    func banner(baseURL: String) -> String {
        """
          First start: created the demo container \(Self.identifier) with notes and folders.
          Its API token (development): \(apiToken)
          Try: curl -s '\(baseURL)/database/1/\(Self.identifier)/development/public/records/query?ckAPIToken=\(apiToken)' \\
                 -d '{"query":{"recordType":"Note","sortBy":[{"fieldName":"title"}]}}'

        """
    }
}
