import CloudStore
import Foundation
import HTTPServer

/// The schema of an environment: a list of the record types with their record counts to jump
/// between, then each type with every field (system fields included), type and indexes, and
/// grants. In development: create a type, add a field, save a type's indexes (one form per
/// type, offering only the indexes each field's type can carry), delete a field or a type
/// (after a page counting what goes), upload a `.ckdb` (errors shown at their line and column;
/// what it would add, change and remove shown before it is imported).
/// Production is read-only. A change's notice is shown beside the type it changed.
///
/// Under `/console/containers/C/ENV/schema`: `GET`, `GET /download` (`.ckdb`), `POST /types`,
/// `POST /types/T/fields`, `POST /types/T/indexes`, `POST /types/T/fields/F/indexes`,
/// `POST /types/T/delete`, `POST /types/T/fields/F/delete`, `POST /types/T/fields/F/personal`,
/// `POST /upload`.
struct SchemaPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The field types a new field can have, as CloudKit names them.
    static let fieldTypes = ScalarType.allCases.flatMap { [FieldType($0).wireName, FieldType.list($0).wireName] }
    /// The indexes a field can have.
    static let indexKinds = IndexKind.allCases.map(\.rawValue)

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
            .post(base + "/types/:type/indexes") { request in try pages.setTypeIndexes(request) },
            .post(base + "/types/:type/delete") { request in try pages.delete(request) },
            .post(base + "/types/:type/fields/:field/delete") { request in try pages.delete(request) },
            .post(base + "/types/:type/fields/:field/personal") { request in try pages.setPersonal(request) },
            .post(base + "/upload", maxBodyBytes: ConsolePages.maximumFormBytes) { request in try pages.upload(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return .page(try page(location, request))
    }

    private func page(
        _ location: ConsoleLocation, _ request: ConsoleRequest, uploadError: String? = nil, uploaded: String? = nil,
        preview: SchemaImportPreview? = nil
    ) throws -> Page {
        let schema = SchemaView(try actions.schema(of: try location.identifier, environment: location.environment, as: request.identity))
        let counts = try actions.recordCounts(of: try location.identifier, environment: location.environment, as: request.identity)
        let personal = try actions.personalFields(of: try location.identifier, as: request.identity)
        let base = location.path(.schema)
        // The notice of a change to one type is shown in that type's section, where the page opens.
        let placed = request.notice.flatMap { notice in request.query("saved").map { ($0, notice) } }
        let types = schema.recordTypes.map { type -> [String: Any] in
            let typePath = base + "/types/" + URLEncoding.component(type.name)
            let typeID = RecordForm.identifier(type.name)
            func fieldContext(_ field: SchemaView.Field) -> [String: Any] {
                let fieldID = RecordForm.identifier(field.name)
                let allowed = IndexKind.allowed(on: field.type).map(\.rawValue)
                return [
                    "name": field.name, "type": field.type.wireName, "system": field.isSystem,
                    "indexes": field.indexes.map { ["name": $0] }, "hasIndexes": !field.indexes.isEmpty,
                    "indexChoices": allowed.map { kind in
                        [
                            "name": kind, "checked": field.indexes.contains(kind), "id": "ix-\(typeID)-\(fieldID)-\(kind)",
                            "field": field.name,
                        ]
                    },
                    "indexable": !allowed.isEmpty,
                    "deleteAction": typePath + "/fields/" + URLEncoding.component(field.name) + "/delete",
                    "personal": personal.contains(field.name, of: type.name),
                    "maskable": ![.reference, .asset].contains(field.type.scalar),
                    "personalAction": typePath + "/fields/" + URLEncoding.component(field.name) + "/personal",
                ]
            }
            let count = counts[type.name] ?? 0
            var context: [String: Any] = [
                "name": type.name, "id": "type-" + typeID, "formID": "type-\(typeID)-indexes", "count": String(count),
                "countLabel": "\(count) record\(count == 1 ? "" : "s")",
                "recordsURL": location.path(.records, query: [("type", type.name)]),
                "systemFields": type.fields.filter(\.isSystem).map(fieldContext),
                "userFields": type.userFields.map(fieldContext), "hasUserFields": !type.userFields.isEmpty,
                "userFieldCount": String(type.userFields.count),
                "grants": type.grants.map { ["grant": $0] },
                "fieldAction": typePath + "/fields",
                "indexesAction": typePath + "/indexes",
                "deleteAction": typePath + "/delete",
                "deletable": type.name != Share.recordType,
                "fieldTypes": Self.fieldTypes.map { ["name": $0] },
                "indexKinds": Self.indexKinds.map { ["name": $0, "id": "new-\(typeID)-\($0)"] },
            ]
            if let (saved, notice) = placed, saved == type.name { context["notice"] = notice.context }
            // Adding a field stays open on a type without fields, and after a change to the type.
            context["addOpen"] = type.userFields.isEmpty || request.query("saved") == type.name
            return context
        }
        var context: [String: Any] = [
            "bar": location.bar(.schema), "types": types, "hasTypes": !types.isEmpty, "editable": schema.editable,
            "environment": location.environment.rawValue, "roles": schema.roles.map { ["name": $0] }, "hasRoles": !schema.roles.isEmpty,
            "downloadURL": base + "/download", "typeAction": base + "/types", "uploadAction": base + "/upload#upload",
        ]
        if placed.map({ saved, _ in schema.recordType(saved) != nil }) == true { context["noticePlaced"] = true }
        if let uploadError {
            context["uploadError"] = uploadError
            if let uploaded, let excerpt = Self.excerpt(of: uploaded, at: uploadError) { context["uploadExcerpt"] = excerpt }
            context["uploadedText"] = uploaded ?? ""
        }
        if let preview, let uploaded {
            func lines(_ lines: [String]) -> [[String: String]] { lines.map { ["line": $0] } }
            context["importPreview"] = [
                "added": lines(preview.added), "changed": lines(preview.changed), "removed": lines(preview.removed),
                "hasAdded": !preview.added.isEmpty, "hasChanged": !preview.changed.isEmpty, "hasRemoved": !preview.removed.isEmpty,
                "isEmpty": preview.isEmpty, "text": uploaded,
            ]
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
        return try console.attempt(back: location.path(.schema), success: Self.typeURL(location, name)) {
            _ = try actions.createRecordType(name, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Record type \(name) created."
        }
    }

    private func addField(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: Self.typeURL(location, type)) {
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
        return try console.attempt(back: Self.typeURL(location, type)) {
            _ = try actions.setIndexes(
                indexes, of: field, recordType: type, in: try location.identifier, environment: location.environment, as: request.identity)
            return indexes.isEmpty ? "\(type).\(field) has no indexes now." : "\(type).\(field) is now \(indexes.joined(separator: ", "))."
        }
    }

    /// Marks a field personal, or takes the mark off (`personal=yes` or `no`): the container's
    /// mark, which a masked copy from production to development reads.
    private func setPersonal(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        let field = request.path("field")
        let personal = request.field("personal") == "yes"
        return try console.attempt(back: Self.typeURL(location, type)) {
            _ = try actions.setPersonal(personal, field: field, recordType: type, of: try location.identifier, as: request.identity)
            return personal
                ? "\(type).\(field) is personal: a copy from production to development replaces its values with fakes."
                : "\(type).\(field) is not personal any more: a copy from production takes its values as they are."
        }
    }

    /// The schema page opened at `type`, where the notice of a change to it is shown.
    static func typeURL(_ location: ConsoleLocation, _ type: String) -> String {
        location.path(.schema, query: [("saved", type)]) + "#type-" + RecordForm.identifier(type)
    }

    /// Saves the indexes of every field of one type, as its form sends them: `field` once per
    /// field the form shows, `index.FIELD` once per index ticked.
    private func setTypeIndexes(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        var indexes: [String: [String]] = [:]
        for field in request.fields("field") { indexes[field] = request.fields("index." + field) }
        return try console.attempt(back: Self.typeURL(location, type)) {
            _ = try actions.setIndexes(
                indexes, recordType: type, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Indexes of \(type) saved."
        }
    }

    /// Deletes a field (with `:field` in the path) or a whole type, after a page counting what
    /// would be removed.
    private func delete(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.path("type")
        let field = request.http.pathParameters["field"]
        let what = field.map { "field \(type).\($0)" } ?? "record type \(type)"
        guard request.isConfirmed else {
            let impact: SchemaDeletionView
            do {
                impact = try actions.deleteFromSchema(
                    field: field, of: type, confirmed: false, in: try location.identifier, environment: location.environment,
                    as: request.identity)
            } catch {
                let mapped = ConsoleError(error)
                guard mapped.isShown else { throw mapped }
                return .redirect(Self.typeURL(location, type), .failure(mapped.description))
            }
            let removes =
                field == nil
                ? "It deletes \(impact.summary), in every zone of every database, then the type with its fields, indexes and grants."
                : "It removes \(impact.summary), then the field and its indexes."
            return .page(
                ConfirmPage.page(
                    title: "Delete \(what)?",
                    message: "\(removes) Devices syncing the zones are told of the changed records. This cannot be undone.",
                    action: request.http.path, button: "Delete \(what)", fields: [], cancelURL: Self.typeURL(location, type),
                    bar: location.bar(.schema)))
        }
        return try console.attempt(back: Self.typeURL(location, type), success: field == nil ? location.path(.schema) : nil) {
            let done = try actions.deleteFromSchema(
                field: field, of: type, confirmed: true, in: try location.identifier, environment: location.environment,
                as: request.identity)
            return "Deleted \(what): \(done.summary) removed."
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
        // First what the import would change; the preview's own form applies it.
        let applying = request.field("apply") == "yes"
        do {
            guard applying else {
                let preview = try actions.previewSchemaImport(
                    text, into: try location.identifier, environment: location.environment, as: request.identity)
                return .page(try page(location, request, uploaded: text, preview: preview.preview))
            }
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
