import CloudStore
import Foundation
import HTTPServer

/// The schema of an environment: record types with every field (system fields included), type
/// and indexes, and grants. In development: create a type, add a field, change a field's
/// indexes, upload a `.ckdb` (errors shown at their line and column). Production is read-only.
///
/// Under `/console/containers/C/ENV/schema`: `GET`, `GET /download` (`.ckdb`), `POST /types`,
/// `POST /types/T/fields`, `POST /types/T/fields/F/indexes`, `POST /upload`.
struct SchemaPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The field types a new field can have, as CloudKit names them.
    static let fieldTypes = ScalarType.allCases.flatMap { [FieldType($0).wireName, FieldType.list($0).wireName] }
    /// The indexes a field can have.
    static let indexKinds = ["QUERYABLE", "SORTABLE", "SEARCHABLE"]

    /// The templates these pages render.
    static let templates = ["console.schema"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/schema"
        return [
            .get(base) { request in try pages.show(request) },
            .get(base + "/download") { request in try pages.download(request) },
            .post(base + "/types") { request in try pages.createType(request) },
            .post(base + "/types/:type/fields") { request in try pages.addField(request) },
            .post(base + "/types/:type/fields/:field/indexes") { request in try pages.setIndexes(request) },
            .post(base + "/upload", maxBodyBytes: ConsolePages.maximumFormBytes) { request in try pages.upload(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return .page(try page(location, request))
    }

    private func page(_ location: ConsoleLocation, _ request: ConsoleRequest, uploadError: String? = nil, uploaded: String? = nil) throws
        -> Page
    {
        let schema = SchemaView(try actions.schema(of: try location.identifier, environment: location.environment, as: request.identity))
        let base = location.path(.schema)
        let types = schema.recordTypes.map { type -> [String: Any] in
            let typePath = base + "/types/" + URLEncoding.component(type.name)
            return [
                "name": type.name, "id": "type-" + RecordForm.identifier(type.name),
                "recordsURL": location.path(.records, query: [("type", type.name)]),
                "fields": type.fields.map { field -> [String: Any] in
                    [
                        "name": field.name, "type": field.type.wireName, "system": field.isSystem,
                        "indexes": field.indexes.map { ["name": $0] }, "hasIndexes": !field.indexes.isEmpty,
                        "indexAction": typePath + "/fields/" + URLEncoding.component(field.name) + "/indexes",
                        "indexChoices": Self.indexKinds.map { kind in
                            [
                                "name": kind, "checked": field.indexes.contains(kind),
                                "id": "ix-\(RecordForm.identifier(type.name))-\(RecordForm.identifier(field.name))-\(kind)",
                            ]
                        },
                        "userCount": type.userFields.count,
                    ]
                },
                "userFieldCount": String(type.userFields.count),
                "grants": type.grants.map { ["grant": $0] },
                "fieldAction": typePath + "/fields",
                "fieldTypes": Self.fieldTypes.map { ["name": $0] },
                "indexKinds": Self.indexKinds.map { ["name": $0, "id": "new-\(RecordForm.identifier(type.name))-\($0)"] },
            ]
        }
        var context: [String: Any] = [
            "bar": location.bar(.schema), "types": types, "hasTypes": !types.isEmpty, "editable": schema.editable,
            "environment": location.environment.rawValue, "roles": schema.roles.map { ["name": $0] }, "hasRoles": !schema.roles.isEmpty,
            "downloadURL": base + "/download", "typeAction": base + "/types", "uploadAction": base + "/upload#upload",
        ]
        if let uploadError {
            context["uploadError"] = uploadError
            if let uploaded, let excerpt = Self.excerpt(of: uploaded, at: uploadError) { context["uploadExcerpt"] = excerpt }
            context["uploadedText"] = uploaded ?? ""
        }
        return Page("console.schema", status: uploadError == nil ? .ok : .badRequest, context: context)
    }

    private func download(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let text = try actions.schemaText(of: try location.identifier, environment: location.environment, as: request.identity)
        var response = HTTPResponse.text(text)
        response.headers["Content-Disposition"] =
            "attachment; filename=\"\(RecordForm.identifier(location.container))-\(location.environment.rawValue).ckdb\""
        return .response(response)
    }

    private func createType(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.schema)) {
            _ = try actions.createRecordType(name, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Record type \(name) created."
        }
    }

    private func addField(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.schema) + "#type-" + RecordForm.identifier(type)) {
            _ = try actions.addField(
                name, type: request.field("type") ?? "", indexes: request.fields("index"), to: type, in: try location.identifier,
                environment: location.environment, as: request.identity)
            return "Field \(name) added to \(type)."
        }
    }

    private func setIndexes(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        let field = request.path("field")
        let indexes = request.fields("index")
        return try console.attempt(back: location.path(.schema) + "#type-" + RecordForm.identifier(type)) {
            _ = try actions.setIndexes(
                indexes, of: field, recordType: type, in: try location.identifier, environment: location.environment, as: request.identity)
            return indexes.isEmpty ? "\(type).\(field) has no indexes now." : "\(type).\(field) is now \(indexes.joined(separator: ", "))."
        }
    }

    private func upload(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let text: String
        if let file = request.form.file("file") {
            guard let decoded = String(validating: file.bytes, as: UTF8.self) else {
                return .page(try page(location, request, uploadError: "The file \(file.filename) is not UTF-8 text."))
            }
            text = decoded
        } else {
            text = request.field("text") ?? ""
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return .page(try page(location, request, uploadError: "Choose a .ckdb file or paste the schema first."))
        }
        do {
            _ = try actions.importSchema(text, into: try location.identifier, environment: location.environment, as: request.identity)
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .page(try page(location, request, uploadError: mapped.description, uploaded: text))
        }
        return .redirect(location.path(.schema), .success("Schema imported into \(location.environment.rawValue)."))
    }

    /// The line an error names (`line 3, column 7`), with a caret under the column.
    static func excerpt(of text: String, at message: String) -> [String: Any]? {
        guard let range = message.range(of: #"line (\d+), column (\d+)"#, options: .regularExpression) else { return nil }
        let numbers = message[range].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard numbers.count == 2 else { return nil }
        // isNewline, because a browser's "\r\n" is one Character to Swift.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard numbers[0] >= 1, numbers[0] <= lines.count else { return nil }
        let line = String(lines[numbers[0] - 1])
        // Under the column, past the "3 | " the excerpt starts with.
        let caret = String(repeating: " ", count: String(numbers[0]).count + 3 + max(numbers[1] - 1, 0)) + "^"
        return ["line": String(numbers[0]), "column": String(numbers[1]), "text": line, "caret": caret]
    }
}
