import CloudStore

/// Reads a `records/modify` body into a ``ScannedModifyBody`` as it goes, with the scanning steps
/// of `JSONParser+Scanning.swift`.
///
/// Anything this does not read as the tree reader would ends the scan with `nil` (the tree is
/// then parsed): so every refusal here is ``notScanned()``, never an answer to the client.
extension JSONParser {
    /// `operations`: an array of operation dictionaries (the body and the array around each).
    mutating func readOperations(depthLimit: Int) throws(JSONParseError) -> [ScannedOperation] {
        var operations: [ScannedOperation] = []
        try readArray { parser throws(JSONParseError) in
            operations.append(try parser.readOperation(depthLimit: depthLimit))
        }
        return operations
    }

    /// One operation dictionary; its members sit inside the body, the array and itself.
    private mutating func readOperation(depthLimit: Int) throws(JSONParseError) -> ScannedOperation {
        var kind: RecordOperation.Kind?
        var record: (name: String?, type: String?, tag: String?, fields: [ScannedField]?)?
        var desiredKeys: [String]?
        var hasDesiredKeys = false
        try readObject { parser, key throws(JSONParseError) in
            switch key {
            case "operationType":
                guard kind == nil, case .string(let name) = try parser.readPlainValue(inside: 3, depthLimit: depthLimit),
                    let named = RecordOperation.Kind(rawValue: name)
                else { throw parser.notScanned() }
                kind = named
            case "record":
                guard record == nil else { throw parser.notScanned() }
                record = try parser.readRecord(depthLimit: depthLimit)
            case "desiredKeys":
                try parser.once(&hasDesiredKeys)
                desiredKeys = try parser.readStrings(inside: 3, depthLimit: depthLimit)
            default:
                _ = try parser.readPlainValue(inside: 3, depthLimit: depthLimit)
            }
        }
        guard let kind, let record else { throw notScanned() }
        return ScannedOperation(
            kind: kind, recordName: record.name, recordType: record.type, recordChangeTag: record.tag,
            desiredKeys: desiredKeys, fields: record.fields)
    }

    /// A Record Dictionary; its members sit four containers deep.
    private mutating func readRecord(depthLimit: Int) throws(JSONParseError) -> (
        name: String?, type: String?, tag: String?, fields: [ScannedField]?
    ) {
        var name: String?, type: String?, tag: String?
        var fields: [ScannedField]?
        var seen = (name: false, type: false, tag: false, fields: false)
        try readObject { parser, key throws(JSONParseError) in
            switch key {
            case "recordName":
                try parser.once(&seen.name)
                name = try parser.readOptionalString(inside: 4, depthLimit: depthLimit)
            case "recordType":
                try parser.once(&seen.type)
                type = try parser.readOptionalString(inside: 4, depthLimit: depthLimit)
            case "recordChangeTag":
                try parser.once(&seen.tag)
                tag = try parser.readOptionalString(inside: 4, depthLimit: depthLimit)
            case "fields":
                try parser.once(&seen.fields)
                fields = try parser.readFields(depthLimit: depthLimit)
            case "parent", "createShortGUID", "forRecord", "participants", "publicPermission":
                // Shares, parents and short GUIDs are left to the tree reader.
                throw parser.notScanned()
            default:
                _ = try parser.readPlainValue(inside: 4, depthLimit: depthLimit)
            }
        }
        // A share's save reads members this scan leaves alone.
        guard type != Share.recordType else { throw notScanned() }
        return (name, type, tag, fields)
    }

    /// `fields`: `null`, or an object of Record Field Dictionaries (each `null` or an object).
    private mutating func readFields(depthLimit: Int) throws(JSONParseError) -> [ScannedField]? {
        if try readNull(inside: 4, depthLimit: depthLimit) { return nil }
        var fields: [ScannedField] = []
        // Room for a usual record's fields at once, rather than a step at a time as they come.
        fields.reserveCapacity(8)
        // Names already read, kept apart only once a record has more than a few fields.
        var names: Set<String>?
        try readObject { parser, name throws(JSONParseError) in
            if names == nil, fields.count >= 16 { names = Set(fields.map(\.name)) }
            if names != nil {
                guard names!.insert(name).inserted else { throw parser.notScanned() }
            } else {
                guard !fields.contains(where: { $0.name == name }) else { throw parser.notScanned() }
            }
            fields.append(try parser.readField(name, depthLimit: depthLimit))
        }
        return fields
    }

    /// One Record Field Dictionary (`{value, type}`), or `null`; its members sit six containers deep.
    private mutating func readField(_ name: String, depthLimit: Int) throws(JSONParseError) -> ScannedField {
        if try readNull(inside: 5, depthLimit: depthLimit) { return ScannedField(name: name, hint: nil, value: nil) }
        let (value, hint) = try readFieldDictionary(inside: 6, depthLimit: depthLimit)
        return ScannedField(name: name, hint: hint, value: value)
    }
}
