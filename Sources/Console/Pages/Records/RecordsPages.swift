import CloudKitWire
import CloudStore
import Foundation
import HTTPServer

/// The records of a database: query, detail, create, edit, delete (one or a selection),
/// export, and adding the index a query is missing. Everything goes through the records
/// actions the management API calls.
///
/// Under `/console/containers/C/ENV/DB/records` (`?zone=…&user=…` keep the zone and the user
/// whose private or shared database it is):
/// - `GET` the query page; `GET /export?format=json|csv` the query's records as a file;
/// - `POST /delete` the selected records (after a confirmation page); `POST /index` adds a missing index;
/// - `GET|POST /new` a new record; `GET /NAME` its detail; `GET|POST /NAME/edit`; `POST /NAME/delete`;
/// - `GET /NAME/fields/FIELD` downloads a BYTES value.
struct RecordsPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.records", "console.record", "console.record-form"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/:database/records"
        // A record's form may carry a file as large as an asset may be: the store, not the
        // server, then refuses a file over the limit, and says so in the form.
        let formBytes = ConsolePages.maximumFormBytes + console.actions.store.configuration.maximumAssetBytes
        return [
            .get(base) { request in try pages.list(request) },
            .get(base + "/export") { request in try pages.export(request) },
            .post(base + "/delete") { request in try pages.deleteSelected(request) },
            .post(base + "/index") { request in try pages.addIndex(request) },
            .get(base + "/new") { request in try pages.newRecord(request) },
            .post(base + "/new", maxBodyBytes: formBytes) { request in try pages.create(request) },
            .get(base + "/:record") { request in try pages.detail(request) },
            .get(base + "/:record/edit") { request in try pages.editRecord(request) },
            .post(base + "/:record/edit", maxBodyBytes: formBytes) { request in try pages.update(request) },
            .post(base + "/:record/delete") { request in try pages.delete(request) },
            .get(base + "/:record/fields/:field") { request in try pages.download(request) },
        ]
    }

    // MARK: - Where and what

    /// The location, the environment's schema and the operator's time zone of a request.
    private func setting(_ request: ConsoleRequest) throws -> (ConsoleLocation, SchemaView, TimeZone) {
        let location = console.settled(try ConsoleLocation(request), request)
        let schema = SchemaView(try actions.schema(of: try location.identifier, environment: location.environment, as: request.identity))
        return (location, schema, Formatting.timeZone(of: request.http))
    }

    /// The base template values of a records page.
    private func frame(_ location: ConsoleLocation, _ request: ConsoleRequest, zones: Bool = true) -> [String: Any] {
        [
            "bar": location.bar(.records, zones: zones ? console.zoneNames(location, request) : []),
            "recordsURL": location.path(.records),
            "recordsPath": location.formPath(.records),
            "hiddenFields": location.hiddenFields,
            "timeZone": Formatting.timeZone(of: request.http).identifier,
            "isDevelopment": location.environment == .development,
        ]
    }

    /// Whether the page can show records: a private or shared database needs its user, and is
    /// shown in development only. Otherwise the reason, for the page to say (the history's pages say it too).
    func blocked(_ location: ConsoleLocation) -> String? {
        guard location.database != .public else { return nil }
        if location.environment == .production {
            return "In production a user's \(location.database) database belongs to them alone; act as a user in development."
        }
        if location.user == nil { return "Name the app user whose \(location.database) database to see and edit (act as user)." }
        return nil
    }

    // MARK: - Query

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        var context = frame(location, request)
        context["title"] = "Records"
        if let reason = blocked(location) {
            context["blocked"] = reason
            return .page(Page("console.records", context: context))
        }
        guard !schema.recordTypes.isEmpty else {
            context["noTypes"] = true
            context["schemaURL"] = location.path(.schema)
            return .page(Page("console.records", context: context))
        }
        // The zone's counts choose the type shown first: one the zone holds. A zone the store
        // does not let this user reach (a shared zone not accepted) shows nothing of its contents.
        let counts: [String: Int64]
        do {
            counts = try actions.recordCounts(
                zone: location.zone, owner: location.zoneOwner, in: try location.identifier, environment: location.environment,
                database: location.database, user: location.user, as: request.identity)
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            context["zoneError"] = mapped.description
            return .page(Page("console.records", status: mapped.status, context: context))
        }
        let held = schema.recordTypes.first { (counts[$0.name] ?? 0) > 0 }?.name
        let form = RecordQueryForm(request, schema: schema, defaultType: held)
        context["form"] = form.context(schema: schema, counts: counts)
        context["hasTypes"] = true
        context["newURL"] = location.path(.records, "/new", query: [("type", form.recordType)])
        context["exportJSON"] = location.path(.records, "/export", query: form.queryPairs + [("format", "json")])
        context["exportCSV"] = location.path(.records, "/export", query: form.queryPairs + [("format", "csv")])
        context["trashURL"] = HistoryPages.path(location, "/trash", query: [("zone", location.zone)])
        context["restorePointURL"] = HistoryPages.path(
            location, "/restore-point", query: [("zone", location.zone), ("type", form.recordType)])
        context["headers"] = headers(form, schema, location)
        context["back"] = location.path(.records, query: form.pagePairs)
        let total = counts[form.recordType] ?? 0
        context["total"] = "\(total) \(form.recordType) record\(total == 1 ? "" : "s") in zone \(location.zone)"
        var status = HTTPStatus.ok
        // Without a filter or a sort the records are browsed by name, from the store; in the
        // shared database the store lists only what the participant's shares give them.
        let browsing = form.browses
        do {
            let answer: JSONValue
            if browsing {
                answer = try actions.browseRecords(
                    zone: location.zone, owner: location.zoneOwner, recordType: form.recordType, after: form.after, limit: form.limit,
                    in: try location.identifier,
                    environment: location.environment, database: location.database, user: location.user, as: request.identity)
                context["browsed"] = true
            } else {
                answer = try actions.queryRecords(
                    try form.body(schema: schema, location: location, timeZone: timeZone), in: try location.identifier,
                    environment: location.environment, database: location.database, user: location.user, as: request.identity)
            }
            let records = answer["records"]?.arrayValue ?? []
            context["rows"] = records.map { row($0, form: form, location: location, timeZone: timeZone) }
            context["hasRows"] = !records.isEmpty
            context["shown"] = String(records.count)
            context["page"] = String(form.page)
            if let marker = answer["continuationMarker"]?.stringValue {
                context["nextURL"] = location.path(
                    .records, query: form.queryPairs + [(browsing ? "after" : "marker", marker), ("page", String(form.page + 1))])
            }
            if form.marker != nil || form.after != nil { context["firstURL"] = location.path(.records, query: form.queryPairs) }
            context["ran"] = true
        } catch CloudStoreError.missingIndex(let missing) {
            status = .badRequest
            context["missingIndex"] = [
                "recordType": missing.recordType, "field": Self.shownName(ofField: missing.field), "fieldName": missing.field,
                "index": missing.index.rawValue, "action": location.path(.records, "/index"),
                "back": location.path(.records, query: form.queryPairs),
            ]
            context["browseURL"] = location.path(.records, query: [("type", form.recordType)])
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            status = mapped.status
            context["queryError"] = mapped.description
        }
        return .page(Page("console.records", status: status, context: context))
    }

    /// The results' column headers, each a link sorting by its column (ascending, or descending
    /// when already sorted ascending by it).
    private func headers(_ form: RecordQueryForm, _ schema: SchemaView, _ location: ConsoleLocation) -> [[String: Any]] {
        func header(_ label: String, _ field: String?) -> [String: Any] {
            let current = form.sortField == field
            // Record names are browsed in one order only.
            let ascending = field == nil || !(current && form.ascending)
            return [
                "label": label, "url": location.path(.records, query: form.sortPairs(field, ascending: ascending)),
                "sort": current ? (form.ascending ? "ascending" : "descending") : "none",
            ]
        }
        let type = schema.recordType(form.recordType)
        return [header("Record name", nil)]
            + form.shownFields.map { name in
                // A field no query can sort by has a plain header.
                guard let field = type?.field(name), RecordQueryForm.sorts(by: field.type) else { return ["label": name, "url": false] }
                return header(name, name)
            }
            + [header("Modified", SystemField.modTime.rawValue)]
    }

    private func row(_ record: JSONValue, form: RecordQueryForm, location: ConsoleLocation, timeZone: TimeZone) -> [String: Any] {
        let name = record["recordName"]?.stringValue ?? ""
        let display = FieldDisplay(location: location, recordName: name, timeZone: timeZone)
        return [
            "recordName": name,
            "url": location.path(.records, "/" + URLEncoding.component(name)),
            "cells": form.shownFields.map { field -> [String: Any] in
                // Every key the cell template reads is set, so an empty cell never picks up
                // the row's link or name from the enclosing context.
                let empty: [String: Any] = ["name": field, "short": "", "url": false, "numeric": false]
                guard let value = record["fields"]?[field], value["value"] != .null, value["value"] != nil else { return empty }
                return empty.merging(display.render(field, value)) { _, new in new }
            },
            "modified": Formatting.time(record["modified"]?["timestamp"]?.int64Value(acceptingNumericString: true) ?? 0, in: timeZone),
        ]
    }

    private func export(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let form = RecordQueryForm(request, schema: schema)
        guard let format = RecordExport.Format(rawValue: request.query("format") ?? "json") else {
            throw ConsoleError.badRequest("Export as json or csv.")
        }
        let export = try actions.exportRecords(
            try form.body(schema: schema, location: location, timeZone: timeZone, paged: false), format: format,
            in: try location.identifier,
            environment: location.environment, database: location.database, user: location.user, as: request.identity)
        var response = HTTPResponse(status: .ok, bytes: export.bytes)
        response.headers["Content-Type"] = export.contentType
        let name = RecordForm.identifier(form.recordType.isEmpty ? "records" : form.recordType)
        response.headers["Content-Disposition"] = "attachment; filename=\"\(name)-\(location.environment.rawValue).\(format.rawValue)\""
        return .response(response)
    }

    private func addIndex(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let back = request.field("back").flatMap { $0.hasPrefix(location.containerPath + "/") ? $0 : nil } ?? location.path(.records)
        let type = request.field("recordType") ?? ""
        let field = request.field("field") ?? ""
        let index = request.field("index") ?? ""
        return try console.attempt(back: back) {
            let schema = SchemaView(
                try actions.schema(of: try location.identifier, environment: location.environment, as: request.identity))
            let existing = schema.recordType(type)?.field(field)?.indexes ?? []
            _ = try actions.setIndexes(
                existing + [index], of: field, recordType: type, in: try location.identifier, environment: location.environment,
                as: request.identity)
            return "Added a \(index) index on \(type).\(Self.shownName(ofField: field)); the query ran again."
        }
    }

    /// A field's name as the missing-index notice and its confirmation show it: CloudKit's
    /// `recordName` for the record name's system field, whose stored name is jargon.
    static func shownName(ofField field: String) -> String {
        field == SystemField.recordID.rawValue ? "recordName" : field
    }

    // MARK: - One record

    /// The record named in the path, or a 404.
    private func fetch(_ request: ConsoleRequest, _ location: ConsoleLocation) throws -> JSONValue {
        let name = request.path("record")
        let answer = try actions.lookupRecords(
            ["records": [["recordName": .string(name)]], "zoneID": location.zoneID], in: try location.identifier,
            environment: location.environment, database: location.database, user: location.user, as: request.identity)
        guard let record = answer["records"]?[0], record["recordType"] != nil else {
            let reason = answer["records"]?[0]?["reason"]?.stringValue ?? "Record not found"
            throw ConsoleError.notFound("\(reason): no record \(name) in zone \(location.zone).")
        }
        return record
    }

    private func detail(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let record = try fetch(request, location)
        var context = frame(location, request, zones: false)
        let names = UserNames(try location.identifier, actions)
        context.merge(recordContext(record, schema: schema, location: location, timeZone: timeZone, people: names)) { _, new in new }
        context.merge(relations(record, location: location, request: request, people: names)) { _, new in new }
        return .page(Page("console.record", context: context))
    }

    /// What a record is tied to: its parent, the share it is the root of (or, for a share, its
    /// participants), the records pointing at it, and itself as JSON to copy.
    private func relations(_ record: JSONValue, location: ConsoleLocation, request: ConsoleRequest, people: UserNames)
        -> [String: Any]
    {
        func link(_ name: String) -> String { location.path(.records, "/" + URLEncoding.component(name)) }
        var context: [String: Any] = ["json": Self.pretty(record)]
        if let parent = record["parent"]?["recordName"]?.stringValue {
            context["parent"] = ["name": parent, "url": link(parent)]
        }
        if let share = record["share"]?["recordName"]?.stringValue {
            context["share"] = ["name": share, "url": link(share)]
        }
        if let participants = record["participants"]?.arrayValue {
            context["participants"] = participants.map { participant -> [String: Any] in
                let identity = participant["userIdentity"]
                let who =
                    identity?["userRecordName"]?.stringValue.map(people.label) ?? identity?["lookupInfo"]?["emailAddress"]?.stringValue
                    ?? "?"
                return [
                    "who": who, "type": participant["type"]?.stringValue ?? "", "permission": participant["permission"]?.stringValue ?? "",
                    "status": participant["acceptanceStatus"]?.stringValue ?? "",
                ]
            }
            context["isShare"] = true
            context["publicPermission"] = record["publicPermission"]?.stringValue ?? "NONE"
        }
        let name = record["recordName"]?.stringValue ?? ""
        if let found = try? actions.recordReferrers(
            of: name, zone: location.zone, owner: location.zoneOwner, in: try location.identifier, environment: location.environment,
            database: location.database,
            user: location.user, as: request.identity)
        {
            let referrers = found["referrers"]?.arrayValue ?? []
            context["referrers"] = referrers.map { referrer -> [String: Any] in
                let referrerName = referrer["recordName"]?.stringValue ?? ""
                return [
                    "name": referrerName, "url": link(referrerName), "type": referrer["recordType"]?.stringValue ?? "",
                    "via": referrer["field"]?.stringValue.map { "field " + $0 } ?? "as its parent",
                ]
            }
            context["hasReferrers"] = !referrers.isEmpty
            context["referrersKnown"] = true
            context["referrersPartial"] = found["complete"]?.boolValue == false
        }
        return context
    }

    /// `value` as indented JSON, for people to read and copy.
    static func pretty(_ value: JSONValue) -> String {
        let compact = Data(value.serialized())
        guard let object = try? JSONSerialization.jsonObject(with: compact),
            let indented = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return String(decoding: compact, as: UTF8.self) }
        return String(decoding: indented, as: UTF8.self)
    }

    private func recordContext(
        _ record: JSONValue, schema: SchemaView, location: ConsoleLocation, timeZone: TimeZone, people: UserNames
    ) -> [String: Any] {
        let name = record["recordName"]?.stringValue ?? ""
        let typeName = record["recordType"]?.stringValue ?? ""
        let display = FieldDisplay(location: location, recordName: name, timeZone: timeZone)
        let declared = schema.recordType(typeName)?.userFields.map(\.name) ?? []
        let present = (record["fields"]?.objectValue ?? JSONObject()).map(\.key)
        let names = declared.filter { present.contains($0) } + present.filter { !declared.contains($0) }.sorted()
        let path = location.path(.records, "/" + URLEncoding.component(name))
        func stamp(_ key: String) -> String {
            let stamp = record[key]
            let time = stamp?["timestamp"]?.int64Value(acceptingNumericString: true).map { Formatting.time($0, in: timeZone) } ?? ""
            return time + " by " + (stamp?["userRecordName"]?.stringValue.map(people.label) ?? "?")
        }
        return [
            "recordName": name, "recordType": typeName, "changeTag": record["recordChangeTag"]?.stringValue ?? "",
            "zoneName": record["zoneID"]?["zoneName"]?.stringValue ?? location.zone,
            "created": stamp("created"), "modified": stamp("modified"),
            "fields": names.compactMap { field in record["fields"]?[field].map { display.render(field, $0) } },
            "editURL": location.path(.records, "/" + URLEncoding.component(name) + "/edit"),
            "deleteAction": location.path(.records, "/" + URLEncoding.component(name) + "/delete"),
            "recordURL": path,
            "historyURL": location.path(.records, "/" + URLEncoding.component(name) + "/history"),
            "queryURL": location.path(.records, query: [("type", typeName)]),
        ]
    }

    private func download(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let record = try fetch(request, location)
        let field = request.path("field")
        var value = record["fields"]?[field]?["value"]
        if let index = request.query("index").flatMap(Int.init) { value = value?[index] }
        guard let base64 = value?.stringValue, let bytes = Data(base64Encoded: base64) else {
            throw ConsoleError.notFound("The record has no bytes in \(field).")
        }
        var response = HTTPResponse(status: .ok, bytes: [UInt8](bytes))
        response.headers["Content-Type"] = "application/octet-stream"
        response.headers["Content-Disposition"] =
            "attachment; filename=\"\(RecordForm.identifier(request.path("record")))-\(RecordForm.identifier(field)).bin\""
        return .response(response)
    }

    // MARK: - Create and edit

    private func newRecord(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, _) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        guard let type = schema.recordType(request.query("type") ?? "") ?? schema.recordTypes.first else {
            throw ConsoleError.badRequest("There are no record types yet; create one on the schema page.")
        }
        return .page(formPage(location, request, type: type, schema: schema, values: [:], recordName: "", existing: nil, error: nil))
    }

    private func create(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        guard let type = schema.recordType(request.field("recordType") ?? "") else {
            throw ConsoleError.badRequest("Choose a record type that exists.")
        }
        let posted = RecordForm.posted(request, type: type)
        let recordName = (request.field("recordName") ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let fields = try RecordForm.fields(posted, previous: [:], type: type, timeZone: timeZone)
            var record: JSONObject = [
                "recordType": .string(type.name),
                "fields": try withFiles(fields, request, type: type, recordName: recordName.isEmpty ? nil : recordName, location),
            ]
            if !recordName.isEmpty { record["recordName"] = .string(recordName) }
            let saved = try modify(["operationType": "create", "record": .object(record)], location, request)
            let name = saved["recordName"]?.stringValue ?? recordName
            return .redirect(location.path(.records, "/" + URLEncoding.component(name)), .success("Record \(name) created."))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            var page = formPage(
                location, request, type: type, schema: schema, values: posted, recordName: recordName, existing: nil,
                error: mapped.description, problems: RecordForm.problems(posted, previous: [:], type: type, timeZone: timeZone))
            page.status = mapped.status
            return .page(page)
        }
    }

    private func editRecord(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let record = try fetch(request, location)
        guard let type = schema.recordType(record["recordType"]?.stringValue ?? "") else {
            throw ConsoleError.badRequest("The record's type is not in the schema; edit it through the API.")
        }
        let values = RecordForm.values(of: record, type: type, timeZone: timeZone)
        return .page(
            formPage(
                location, request, type: type, schema: schema, values: values, recordName: request.path("record"),
                existing: record, error: nil))
    }

    private func update(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let (location, schema, timeZone) = try setting(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let name = request.path("record")
        guard let type = schema.recordType(request.field("recordType") ?? "") else {
            throw ConsoleError.badRequest("Choose a record type that exists.")
        }
        let posted = RecordForm.posted(request, type: type)
        // The values the form was opened with ride along, so only what the operator changed is written.
        var previous: [String: String] = [:]
        for field in type.userFields {
            if let value = request.field("was." + field.name) { previous[field.name] = value }
        }
        // After a conflict the operator may save their changes over the version now on the server.
        let changeTag = request.field("overwrite") ?? request.field("recordChangeTag") ?? ""
        do {
            let fields = try withFiles(
                try RecordForm.fields(posted, previous: previous, type: type, timeZone: timeZone), request, type: type, recordName: name,
                location)
            _ = try modify(
                [
                    "operationType": "update",
                    "record": [
                        "recordName": .string(name), "recordType": .string(type.name), "recordChangeTag": .string(changeTag),
                        "fields": fields,
                    ],
                ], location, request)
            return .redirect(location.path(.records, "/" + URLEncoding.component(name)), .success("Record \(name) saved."))
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            var message = mapped.description
            if case .conflict = mapped {
                message =
                    "Someone else changed this record after you opened it, so your changes were not saved. "
                    + "Your values are still in the form; what they saved is shown under each field they changed."
            }
            let existing = try? fetch(request, location)
            var page = formPage(
                location, request, type: type, schema: schema, values: posted, recordName: name, existing: existing,
                error: message, changeTag: changeTag, previous: previous,
                problems: RecordForm.problems(posted, previous: previous, type: type, timeZone: timeZone))
            page.status = mapped.status
            return .page(page)
        }
    }

    /// `fields` with the files the form posted for ASSET fields, each stored first through the
    /// path the API's uploads take, then named in its field by the receipt the save takes.
    private func withFiles(
        _ fields: JSONValue, _ request: ConsoleRequest, type: SchemaView.RecordType, recordName: String?, _ location: ConsoleLocation
    ) throws -> JSONValue {
        let files = RecordForm.files(request, type: type)
        guard !files.isEmpty, var object = fields.objectValue else { return fields }
        for (field, file) in files {
            let stored = try actions.uploadAsset(
                file.bytes, recordType: type.name, field: field, recordName: recordName, zone: location.zone, owner: location.zoneOwner,
                in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
            object[field] = stored.fieldValue
        }
        return .object(object)
    }

    /// The most records the reference picker offers, from the start of the zone by name.
    static let referenceChoices = 200

    /// The zone's records a REFERENCE field can pick from, by record name with their type: the
    /// first ``referenceChoices`` the operator's listing gives (what the user reaches, acting as
    /// one); none when the zone cannot be listed.
    private func referenceChoices(_ location: ConsoleLocation, _ request: ConsoleRequest) -> [[String: String]] {
        guard
            let page = try? actions.browseRecords(
                zone: location.zone, owner: location.zoneOwner, recordType: nil, after: nil, limit: Self.referenceChoices,
                in: try location.identifier, environment: location.environment, database: location.database, user: location.user,
                as: request.identity)
        else { return [] }
        return (page["records"]?.arrayValue ?? []).compactMap { record in
            guard let name = record["recordName"]?.stringValue else { return nil }
            return ["name": name, "type": record["recordType"]?.stringValue ?? ""]
        }
    }

    private func formPage(
        _ location: ConsoleLocation, _ request: ConsoleRequest, type: SchemaView.RecordType, schema: SchemaView, values: [String: String],
        recordName: String, existing: JSONValue?, error: String?, changeTag: String? = nil, previous: [String: String]? = nil,
        problems: [String: String] = [:]
    ) -> Page {
        var context = frame(location, request, zones: false)
        let isNew = existing == nil && changeTag == nil
        context["isNew"] = isNew
        context["recordType"] = type.name
        context["recordTypes"] = schema.recordTypes.map { ["name": $0.name, "selected": $0.name == type.name] }
        context["recordName"] = recordName
        let opened = previous ?? values
        var inputs = RecordForm.inputs(
            for: type, values: values, problems: problems, maximumFileBytes: actions.store.configuration.maximumAssetBytes)
        if let existing, changeTag != nil, existing["recordChangeTag"]?.stringValue != changeTag {
            // A conflict: beside each field the other writer changed, what the record holds now.
            let theirs = RecordForm.values(of: existing, type: type, timeZone: Formatting.timeZone(of: request.http))
            // Forms send line breaks as CRLF; the record's lists are read with LF.
            func lines(_ text: String?) -> String? { text?.replacingOccurrences(of: "\r\n", with: "\n") }
            for (index, field) in type.userFields.enumerated() where lines(theirs[field.name]) != lines(opened[field.name]) {
                inputs[index]["theirs"] = theirs[field.name].map { $0.isEmpty ? "(empty)" : $0 } ?? "(removed)"
            }
        }
        if inputs.contains(where: { $0["picksRecord"] as? Bool == true }) {
            let choices = referenceChoices(location, request)
            context["recordChoices"] = choices
            context["hasRecordChoices"] = !choices.isEmpty
        }
        context["inputs"] = inputs
        context["sendsFiles"] = RecordForm.sendsFiles(type)
        context["changeTag"] = changeTag ?? existing?["recordChangeTag"]?.stringValue ?? ""
        context["previous"] = type.userFields.compactMap { field in opened[field.name].map { ["name": "was." + field.name, "value": $0] } }
        context["action"] =
            isNew
            ? location.path(.records, "/new")
            : location.path(.records, "/" + URLEncoding.component(recordName) + "/edit")
        context["cancelURL"] =
            isNew
            ? location.path(.records, query: [("type", type.name)])
            : location.path(.records, "/" + URLEncoding.component(recordName))
        if let existing, changeTag != nil, existing["recordChangeTag"]?.stringValue != changeTag {
            context["currentTag"] = existing["recordChangeTag"]?.stringValue ?? ""
        }
        if let error { context["error"] = error }
        context["timeZone"] = Formatting.timeZone(of: request.http).identifier
        return Page("console.record-form", context: context)
    }

    /// Applies one operation and returns the saved record, or throws its error.
    private func modify(_ operation: JSONValue, _ location: ConsoleLocation, _ request: ConsoleRequest) throws -> JSONValue {
        let answer = try actions.modifyRecords(
            ["operations": [operation], "zoneID": location.zoneID], in: try location.identifier,
            environment: location.environment, database: location.database, user: location.user, as: request.identity)
        if case .failure(_, let error)? = answer.results.first { throw ConsoleError(recordFailure: error) }
        return answer.json["records"]?[0] ?? .null
    }

    // MARK: - Delete

    private func delete(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        return try deleteRecords([request.path("record")], location, request)
    }

    private func deleteSelected(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        if let reason = blocked(location) { throw ConsoleError.badRequest(reason) }
        let names = request.fields("record")
        guard !names.isEmpty else { return .redirect(backURL(request, location), .failure("Select the records to delete first.")) }
        guard names.count <= ModifyRequest.maximumOperations else {
            throw ConsoleError.badRequest("Delete at most \(ModifyRequest.maximumOperations) records at once.")
        }
        return try deleteRecords(names, location, request)
    }

    private func backURL(_ request: ConsoleRequest, _ location: ConsoleLocation) -> String {
        request.field("back").flatMap { $0.hasPrefix(location.containerPath + "/") ? $0 : nil } ?? location.path(.records)
    }

    /// Asks first, on a page naming what will be deleted; deletes once confirmed.
    private func deleteRecords(_ names: [String], _ location: ConsoleLocation, _ request: ConsoleRequest) throws -> ConsoleAnswer {
        let back = backURL(request, location)
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: names.count == 1 ? "Delete record \(names[0])?" : "Delete \(names.count) records?",
                    message: "This deletes \(names.count == 1 ? "the record" : "these records") from zone \(location.zone) of the "
                        + "\(location.environment.rawValue) \(location.database) database. It cannot be undone.",
                    items: names, action: request.http.path, button: names.count == 1 ? "Delete record" : "Delete \(names.count) records",
                    fields: location.hiddenFields + names.map { ["name": "record", "value": $0] } + [["name": "back", "value": back]],
                    cancelURL: back, bar: location.bar(.records)))
        }
        let operations: [JSONValue] = names.map { ["operationType": "forceDelete", "record": ["recordName": .string($0)]] }
        let answer = try actions.modifyRecords(
            ["operations": .array(operations), "zoneID": location.zoneID, "atomic": false],
            in: try location.identifier,
            environment: location.environment, database: location.database, user: location.user, as: request.identity)
        let failures = answer.results.compactMap { result -> (recordName: String?, error: CloudStoreError)? in
            guard case .failure(let recordName, let error) = result else { return nil }
            return (recordName, error)
        }
        let deleted = names.count - failures.count
        let destination = back
        if failures.isEmpty {
            return .redirect(destination, .success(deleted == 1 ? "Record \(names[0]) deleted." : "\(deleted) records deleted."))
        }
        let reasons = failures.prefix(3).map { "\($0.recordName ?? ""): \(CloudKitError($0.error).reason)" }
        return .redirect(destination, .failure("\(deleted) deleted, \(failures.count) not: " + reasons.joined(separator: "; ")))
    }
}
