/// A run of consecutive request log entries kept as one stored row: the entries packed in a
/// blob, with what filters need to pass a block by without opening it — its span of time, its
/// count of errors, and the containers, environments, databases, operations, users and statuses
/// it holds.
///
/// One row and no index entry per call is what keeps logging within the API's budget: a row
/// and its index entries per call cost the log's writer more than a read request costs the
/// server. Filters stay fast because a block that lacks a criterion's value is skipped whole.
struct RequestLogBlock {
    /// Entries per block at most.
    static let capacity = 1024
    /// Milliseconds a block spans at most, so that a quiet server's blocks still close (and
    /// are forgotten) on time.
    static let span: Int64 = 10 * 60_000
    /// The layout blocks are written in: 2 adds each entry's reason, credential, user agent,
    /// record types, zones and per-result outcomes after its request id; 3 adds the call's
    /// access trace after those; 4 its schema gap after that. Blocks of earlier formats are
    /// still read, their entries without what came later.
    private static let format: UInt64 = 4

    /// The id of the first entry; the others follow one by one.
    let firstID: Int64
    private(set) var count = 0
    private(set) var firstTime: Int64 = 0
    private(set) var lastTime: Int64 = 0
    private(set) var errors = 0
    private var strings: [String] = []
    private var stringIndex: [String: Int] = [:]
    /// Each string's use as a term (``Term``), by index and kind.
    private var terms = Set<Int>()
    /// The string each field had in the entry before, and its index: consecutive calls mostly
    /// share their container, environment, database, operation, user and client, and comparing
    /// with the one before costs less than hashing.
    private var previous = [(string: String, index: Int)?](repeating: nil, count: Field.allCases.count)
    private var previousStatus: Int?
    /// Whether an entry was refused for want of production's schema: a term of its own, so
    /// that the schema guard passes by the blocks without.
    private var hasSchemaRefusals = false
    private var records = BinaryWriter()

    /// What a block's terms name, and the prefix each has in ``termsText``.
    enum Term: Int, CaseIterable {
        case container, environment, database, operation, user, status

        var prefix: String {
            switch self {
            case .container: "c:"
            case .environment: "e:"
            case .database: "d:"
            case .operation: "o:"
            case .user: "u:"
            case .status: "s:"
            }
        }

        /// How a value appears in ``RequestLogBlock/termsText``: a block with the value holds this.
        func text(_ value: String) -> String { "\n" + prefix + value + "\n" }
    }

    /// The fields whose strings an entry refers to by index.
    private enum Field: Int, CaseIterable {
        case container, environment, database, operation, user, client, errorCode, reason, credential, userAgent, recordTypes, zones
        case resultError, trace, schemaGap

        var term: Term? {
            switch self {
            case .container: .container
            case .environment: .environment
            case .database: .database
            case .operation: .operation
            case .user: .user
            case .client, .errorCode, .reason, .credential, .userAgent, .recordTypes, .zones, .resultError, .trace, .schemaGap: nil
            }
        }
    }

    /// An empty block whose first entry gets `firstID`.
    init(firstID: Int64) {
        self.firstID = firstID
    }

    /// The id the next entry would get.
    var nextID: Int64 { firstID + Int64(count) }

    /// Whether an entry at `time` belongs in a new block.
    func isClosed(before time: Int64) -> Bool {
        count >= Self.capacity || (count > 0 && time - firstTime >= Self.span)
    }

    /// Adds an entry as the next one; it gets the id ``nextID`` had.
    mutating func append(_ entry: RequestLogEntry) {
        if count == 0 { firstTime = entry.time }
        count += 1
        lastTime = max(lastTime, entry.time)
        if entry.isFailure { errors += 1 }
        records.signed(entry.time - firstTime)
        records.varint(UInt64(index(entry.container, .container)))
        records.varint(UInt64(index(entry.environment, .environment)))
        records.varint(UInt64(index(entry.database, .database)))
        records.varint(UInt64(index(entry.operation, .operation)))
        records.varint(entry.user.map { UInt64(index($0, .user)) + 1 } ?? 0)
        records.varint(UInt64(index(entry.clientAddress, .client)))
        records.signed(Int64(entry.status))
        if previousStatus != entry.status {
            terms.insert(Self.statusTerm(entry.status))
            previousStatus = entry.status
        }
        records.varint(entry.serverErrorCode.map { UInt64(index($0, .errorCode)) + 1 } ?? 0)
        records.signed(entry.durationMicroseconds)
        records.signed(entry.bytesIn)
        records.signed(entry.bytesOut)
        records.string(entry.requestID)
        optional(entry.reason, .reason)
        optional(entry.credential?.packed, .credential)
        optional(entry.userAgent, .userAgent)
        optional(entry.recordTypes, .recordTypes)
        optional(entry.zones, .zones)
        records.signed(entry.results.map(Int64.init) ?? -1)
        records.varint(UInt64(entry.resultErrors.count))
        for (code, count) in entry.resultErrors {
            records.varint(UInt64(index(code, .resultError)))
            records.varint(UInt64(count))
        }
        optional(entry.packedTrace, .trace)
        optional(entry.schemaGap?.packed, .schemaGap)
        if entry.schemaGap != nil { hasSchemaRefusals = true }
    }

    /// An optional string as its index plus one, 0 for none.
    private mutating func optional(_ string: String?, _ field: Field) {
        records.varint(string.map { UInt64(index($0, field)) + 1 } ?? 0)
    }

    private mutating func index(_ string: String, _ field: Field) -> Int {
        if let previous = previous[field.rawValue], previous.string == string { return previous.index }
        let index: Int
        if let known = stringIndex[string] {
            index = known
        } else {
            index = strings.count
            strings.append(string)
            stringIndex[string] = index
        }
        if let term = field.term { terms.insert(index * 8 + term.rawValue) }
        previous[field.rawValue] = (string, index)
        return index
    }

    /// Statuses are numbers, not strings: their terms are kept apart from the string indexes.
    private static func statusTerm(_ status: Int) -> Int { -(status * 8 + Term.status.rawValue) - 1 }

    /// Every value a filter can ask for, one per line, each line as ``Term/text(_:)`` writes it.
    var termsText: String {
        var lines: [String] = []
        lines.reserveCapacity(terms.count)
        for term in terms {
            if term < 0 {
                let packed = -(term + 1)
                lines.append(Term.status.prefix + String(packed / 8))
            } else if let kind = Term(rawValue: term % 8) {
                lines.append(kind.prefix + strings[term / 8])
            }
        }
        if hasSchemaRefusals { lines.append(Self.schemaRefusalTerm) }
        return "\n" + lines.sorted().joined(separator: "\n") + "\n"
    }

    /// The line of ``termsText`` a block with a call refused for want of production's schema has.
    static let schemaRefusalTerm = "g:1"

    /// The entries as stored: the strings once each, then every entry referring to them.
    func encoded() -> [UInt8] {
        var header = BinaryWriter()
        header.varint(Self.format)
        header.varint(UInt64(strings.count))
        for string in strings { header.string(string) }
        header.varint(UInt64(count))
        header.signed(firstTime)
        return header.bytes + records.bytes
    }

    /// The entries of a stored block that `filter` selects, newest first, at most `limit`.
    /// - Throws: ``CloudStoreError/internalError(_:)`` for bytes this program did not write.
    static func entries(
        firstID: Int64, encoded bytes: [UInt8], matching filter: RequestLogFilter, limit: Int
    ) throws -> [RequestLogEntry] {
        var reader = BinaryReader(bytes: bytes, damaged: .internalError("A request log block is damaged"))
        let version = try reader.varint()
        guard (1...format).contains(version) else {
            throw CloudStoreError.internalError("A request log block has an unknown format")
        }
        let stringCount = try reader.count()
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount { strings.append(try reader.string()) }
        let count = try reader.count()
        let firstTime = try reader.signed()
        // A criterion naming a string the block lacks matches nothing in it.
        func wanted(_ value: String?) -> Int?? {
            guard let value else { return .some(nil) }
            guard let index = strings.firstIndex(of: value) else { return nil }
            return .some(index)
        }
        guard let container = wanted(filter.container), let environment = wanted(filter.environment),
            let database = wanted(filter.database), let operation = wanted(filter.operation), let user = wanted(filter.user)
        else { return [] }
        let wantedRequestID = filter.requestID.map { Array($0.utf8) }
        // First pass: where each match starts, reading only numbers and skipping request ids but
        // for a lookup by one.
        var matches: [(id: Int64, offset: Int)] = []
        for position in 0..<count {
            let start = reader.offset
            let time = firstTime + (try reader.signed())
            let containerIndex = Int(try reader.varint())
            let environmentIndex = Int(try reader.varint())
            let databaseIndex = Int(try reader.varint())
            let operationIndex = Int(try reader.varint())
            let userIndex = Int(try reader.varint())
            _ = try reader.varint()
            let status = Int(try reader.signed())
            _ = try reader.varint()
            _ = try reader.signed()
            _ = try reader.signed()
            _ = try reader.signed()
            let requestIDLength = try reader.count()
            // Only a lookup by request id reads it here; the bytes are compared, not decoded.
            let requestIDMatches =
                wantedRequestID.map {
                    $0.count == requestIDLength && reader.bytes[reader.offset..<reader.offset + requestIDLength].elementsEqual($0)
                } ?? true
            reader.offset += requestIDLength
            var failedResults = false
            if version >= 2 {
                for _ in 0..<5 { _ = try reader.varint() }
                _ = try reader.signed()
                let errorCount = try reader.count()
                for _ in 0..<errorCount * 2 { _ = try reader.varint() }
                failedResults = errorCount > 0
            }
            if version >= 3 { _ = try reader.varint() }
            let schemaRefusal = version >= 4 ? try reader.varint() > 0 : false
            let id = firstID + Int64(position)
            guard container.map({ $0 == containerIndex }) ?? true, environment.map({ $0 == environmentIndex }) ?? true,
                database.map({ $0 == databaseIndex }) ?? true, operation.map({ $0 == operationIndex }) ?? true,
                user.map({ $0 + 1 == userIndex }) ?? true, filter.status.map({ $0 == status }) ?? true,
                !filter.errorsOnly || status >= 400 || failedResults, filter.from.map({ time >= $0 }) ?? true,
                filter.to.map({ time < $0 }) ?? true,
                filter.before.map({ id < $0 }) ?? true, requestIDMatches, !filter.schemaRefusalsOnly || schemaRefusal
            else { continue }
            matches.append((id, start))
        }
        // Second pass: the newest matches, whole.
        func string(_ index: UInt64) throws -> String {
            guard index < UInt64(strings.count) else { throw reader.damaged }
            return strings[Int(index)]
        }
        var entries: [RequestLogEntry] = []
        entries.reserveCapacity(min(limit, matches.count))
        for match in matches.reversed().prefix(limit) {
            reader.offset = match.offset
            let time = firstTime + (try reader.signed())
            let container = try string(try reader.varint())
            let environment = try string(try reader.varint())
            let database = try string(try reader.varint())
            let operation = try string(try reader.varint())
            let user = try reader.varint()
            let client = try string(try reader.varint())
            let status = Int(try reader.signed())
            let errorCode = try reader.varint()
            var entry = RequestLogEntry(
                time: time, container: container, environment: environment, database: database, operation: operation,
                user: user == 0 ? nil : try string(user - 1), clientAddress: client, status: status,
                serverErrorCode: errorCode == 0 ? nil : try string(errorCode - 1), durationMicroseconds: try reader.signed(),
                bytesIn: try reader.signed(), bytesOut: try reader.signed(), requestID: try reader.string())
            if version >= 2 {
                func optional() throws -> String? {
                    let index = try reader.varint()
                    return index == 0 ? nil : try string(index - 1)
                }
                entry.reason = try optional()
                entry.credential = RequestLogCredential(packed: try optional())
                entry.userAgent = try optional()
                entry.recordTypes = try optional()
                entry.zones = try optional()
                let results = try reader.signed()
                entry.results = results < 0 ? nil : Int(results)
                for _ in 0..<(try reader.count()) {
                    let code = try string(try reader.varint())
                    entry.resultErrors[code] = Int(try reader.varint())
                }
            }
            if version >= 3 {
                let index = try reader.varint()
                if index > 0 { entry.trace = RequestLogTrace.unpacked(try string(index - 1)) }
            }
            if version >= 4 {
                let index = try reader.varint()
                if index > 0 { entry.schemaGap = SchemaGap(packed: try string(index - 1)) }
            }
            entry.id = match.id
            entries.append(entry)
        }
        return entries
    }
}
