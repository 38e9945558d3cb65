// CloudStore against raw SQLite calls on the same rows, in the same run:
// single-record saves/s, 200-record batches/s, point lookups/s, and indexed equality queries
// over 1,000,000 records (p50, p99).
//
// With `--only log`: the request log's CPU per API call — recording it on the request thread and
// writing it (its block, the usage counters) in the log's batches — over 400,000 calls.
//
// Usage: swift run -c release StoreBench [--records N] [--directory DIR] [--only single,batch,read,log]
import CloudStore
import Foundation
import RawSQLite

// MARK: - Settings

var recordCount = 1_000_000
var baseDirectory = FileManager.default.temporaryDirectory.path
var phases: Set<String> = ["single", "batch", "read"]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--records": recordCount = Int(arguments.popFirst() ?? "") ?? recordCount
    case "--directory": baseDirectory = arguments.popFirst() ?? baseDirectory
    case "--only": phases = Set((arguments.popFirst() ?? "").split(separator: ",").map(String.init))
    default:
        FileHandle.standardError.write(Data("usage: StoreBench [--records N] [--directory DIR] [--only single,batch,read]\n".utf8))
        exit(2)
    }
}
let singleSaves = 3_000
let batchCount = 100
let batchSize = 200
let lookupCount = 100_000
let queryCount = 2_000
let buckets = max(recordCount / 10, 1)

@MainActor func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

@MainActor func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

@MainActor func fields(_ index: Int) -> [String: FieldValue] {
    [
        "title": .string("A moderately long note title for benchmarking \(index)"),
        "body": .string(String(repeating: "lorem ipsum ", count: 12)),
        "bucket": .int64(Int64(index % buckets)),
        "category": .int64(Int64(index % 1_000)),
    ]
}

@MainActor func name(_ index: Int) -> String { "rec-\(String(UInt32(truncatingIfNeeded: index &* 2_654_435_761), radix: 16))-\(index)" }

// MARK: - Raw SQLite baseline

/// The same rows written and read with prepared statements and nothing else: one table holding
/// name, type, change tag, change sequence and payload, unique by (zone, name), indexed by
/// (zone, seq) for changes and by (zone, bucket) and (zone, category) as the two QUERYABLE fields.
@MainActor final class RawStore {
    var db: OpaquePointer?
    var insert: OpaquePointer?
    var lookup: OpaquePointer?
    var query: OpaquePointer?
    var sequence: Int64 = 0
    let payload = Array(repeating: UInt8(ascii: "x"), count: 260)

    init(path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        sqlite3_open(path, &db)
        exec(
            "PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;"
        )
        exec(
            """
            CREATE TABLE records(id INTEGER PRIMARY KEY, zone INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
                tag TEXT NOT NULL, seq INTEGER NOT NULL, bucket INTEGER NOT NULL, category INTEGER NOT NULL, payload BLOB NOT NULL);
            CREATE UNIQUE INDEX records_name ON records(zone, name);
            CREATE INDEX records_seq ON records(zone, seq);
            CREATE INDEX records_bucket ON records(zone, bucket);
            CREATE INDEX records_category ON records(zone, category);
            """)
        sqlite3_prepare_v3(
            db, "INSERT INTO records(zone, name, type, tag, seq, bucket, category, payload) VALUES (1, ?, 'Note', ?, ?, ?, ?, ?)", -1,
            UInt32(SQLITE_PREPARE_PERSISTENT), &insert, nil)
        sqlite3_prepare_v3(
            db, "SELECT id, type, tag, seq, payload FROM records WHERE zone = 1 AND name = ?", -1, UInt32(SQLITE_PREPARE_PERSISTENT),
            &lookup, nil)
        sqlite3_prepare_v3(
            db, "SELECT id, name, type, tag, payload FROM records WHERE zone = 1 AND bucket = ? ORDER BY id LIMIT 201", -1,
            UInt32(SQLITE_PREPARE_PERSISTENT), &query, nil)
    }

    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
    }

    func add(_ index: Int) {
        sequence += 1
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(insert, 1, name(index), -1, transient)
        sqlite3_bind_text(insert, 2, String(sequence, radix: 36), -1, transient)
        sqlite3_bind_int64(insert, 3, sequence)
        sqlite3_bind_int64(insert, 4, Int64(index % buckets))
        sqlite3_bind_int64(insert, 5, Int64(index % 1_000))
        payload.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 6, $0.baseAddress, Int32($0.count), transient) }
        guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(insert)
    }

    func save(_ indices: Range<Int>) {
        exec("BEGIN IMMEDIATE")
        for index in indices { add(index) }
        exec("COMMIT")
    }

    func find(_ index: Int) -> Bool {
        sqlite3_bind_text(lookup, 1, name(index), -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        defer { sqlite3_reset(lookup) }
        guard sqlite3_step(lookup) == SQLITE_ROW else { return false }
        _ = sqlite3_column_blob(lookup, 4)
        return true
    }

    func rows(inBucket bucket: Int) -> Int {
        sqlite3_bind_int64(query, 1, Int64(bucket))
        defer { sqlite3_reset(query) }
        var count = 0
        while sqlite3_step(query) == SQLITE_ROW {
            _ = sqlite3_column_blob(query, 4)
            count += 1
        }
        return count
    }
}

// MARK: - CloudStore

let container = try ContainerIdentifier("iCloud.com.example.Bench")
let schemaText = """
    DEFINE SCHEMA
        RECORD TYPE Note (
            "___recordID" REFERENCE QUERYABLE,
            title STRING,
            body STRING,
            bucket INT64 QUERYABLE,
            category INT64 QUERYABLE,
            GRANT READ TO "_world"
        );
    """

@MainActor func openCloudStore(_ name: String) throws -> (CloudStore, CloudDatabase, String) {
    let directory = "\(baseDirectory)/cumulus-bench-\(name)-\(getpid())"
    try? FileManager.default.removeItem(atPath: directory)
    let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: directory))
    try store.createContainer(container)
    try store.importSchema(schemaText, into: container, .development)
    return (store, try store.database(container, .development, .public, as: .operator()), directory)
}

@MainActor func create(_ indices: Range<Int>) -> [RecordOperation] {
    indices.map { RecordOperation(.create, recordName: name($0), recordType: "Note", fields: fields($0)) }
}

@MainActor func check(_ results: [RecordResult]) {
    if let failure = results.first(where: { $0.record == nil }) { fatalError("save failed: \(failure)") }
}

struct Row {
    var name: String
    var cumulus: Double
    var raw: Double
    var unit: String
    var ratio: Double { cumulus / raw }
}
var rows: [Row] = []
@MainActor func report(_ row: Row) {
    rows.append(row)
    print(
        String(format: "%-34@ %12.0f %12.0f %@   ratio %.2f", row.name as NSString, row.cumulus, row.raw, row.unit as NSString, row.ratio))
}

// MARK: - The request log

/// Process CPU time in seconds (user and system, every thread).
@MainActor func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

if phases.contains("log") {
    let calls = 400_000
    let batch = 8_000
    for round in 0..<3 {
        let directory = baseDirectory + "/storebench-log-\(getpid())-\(round)"
        let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: directory))
        try store.createContainer(container)
        let log = store.requestLog
        let requestIDs = (0..<batch).map { "\(String($0, radix: 36))-req-\(round)" }
        var recordCPU = 0.0
        let start = cpuSeconds()
        for first in stride(from: 0, to: calls, by: batch) {
            let before = cpuSeconds()
            for index in first..<first + batch {
                log.record(
                    RequestLogEntry(
                        time: Int64(Date().timeIntervalSince1970 * 1000), container: container.rawValue, environment: "development",
                        database: "public", operation: "records/lookup", user: index % 4 == 0 ? "_a1b2c3d4e5f60718293a4b5c6d7e8f90" : nil,
                        clientAddress: "127.0.0.1", status: 200, serverErrorCode: nil, durationMicroseconds: Int64(30 + index % 50),
                        bytesIn: 40, bytesOut: 400, requestID: requestIDs[index - first]))
            }
            recordCPU += cpuSeconds() - before
            try log.flush()
        }
        let total = cpuSeconds() - start
        print(
            String(
                format: "request log, %d calls: %.2f µs CPU per call (%.2f recording, %.2f writing)", calls,
                total / Double(calls) * 1e6, recordCPU / Double(calls) * 1e6, (total - recordCPU) / Double(calls) * 1e6))
        try? FileManager.default.removeItem(atPath: directory)
    }
    if phases == ["log"] { exit(0) }
}

print(
    "StoreBench: \(recordCount) records, \(ProcessInfo.processInfo.activeProcessorCount) cores, SQLite \(String(cString: sqlite3_libversion()))"
)
print(String(format: "%-34@ %12@ %12@", "" as NSString, "CloudStore" as NSString, "raw SQLite" as NSString))

// 1 and 2. Saves, measured in rounds that alternate CloudStore and raw SQLite on fresh files,
// so that whatever else the machine does falls on both alike; the medians are reported.
let rounds = 5

@MainActor func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

@MainActor func alternate(_ name: String, unit: String, count: Int, cumulus: (CloudDatabase) throws -> Void, raw: (RawStore) -> Void) throws
{
    var cumulusRates: [Double] = []
    var rawRates: [Double] = []
    for round in 0..<rounds {
        let (_, database, directory) = try openCloudStore("\(name.filter(\.isLetter))-\(round)")
        let rawStore = RawStore(path: directory + "/raw.sqlite")
        cumulusRates.append(Double(count) / (try seconds { try cumulus(database) }))
        rawRates.append(Double(count) / seconds { raw(rawStore) })
        try? FileManager.default.removeItem(atPath: directory)
    }
    report(Row(name: name, cumulus: median(cumulusRates), raw: median(rawRates), unit: unit))
    print(
        "    rounds CloudStore: \(cumulusRates.map { String(format: "%.0f", $0) }.joined(separator: " / "))  raw: \(rawRates.map { String(format: "%.0f", $0) }.joined(separator: " / "))"
    )
}

if phases.contains("single") {
    try alternate(
        "single-record saves", unit: "saves/s", count: singleSaves,
        cumulus: { database in
            for index in 0..<singleSaves { check(try database.modify(ModifyRequest(operations: create(index..<index + 1)))) }
        },
        raw: { raw in
            for index in 0..<singleSaves { raw.save(index..<index + 1) }
        })
}

if phases.contains("batch") {
    try alternate(
        "200-record batches (default zone)", unit: "batches/s", count: batchCount,
        cumulus: { database in
            for batch in 0..<batchCount {
                check(try database.modify(ModifyRequest(operations: create(batch * batchSize..<(batch + 1) * batchSize))))
            }
        },
        raw: { raw in
            for batch in 0..<batchCount { raw.save(batch * batchSize..<(batch + 1) * batchSize) }
        })
}

// 3 and 4. Load the records, then point lookups and equality queries.
if !phases.contains("read") { exit(0) }
let (_, database, directory) = try openCloudStore("read")
let raw = RawStore(path: directory + "/raw.sqlite")
var loaded = 0
let loadCumulus = try seconds {
    while loaded < recordCount {
        let end = min(loaded + batchSize, recordCount)
        check(try database.modify(ModifyRequest(operations: create(loaded..<end), desiredKeys: [])))
        loaded = end
    }
}
let loadRaw = seconds {
    var start = 0
    while start < recordCount {
        raw.save(start..<min(start + batchSize, recordCount))
        start += batchSize
    }
}
report(
    Row(
        name: "bulk load in 200-record batches", cumulus: Double(recordCount) / loadCumulus, raw: Double(recordCount) / loadRaw,
        unit: "records/s"))
raw.exec("ANALYZE")

var generator = SystemRandomNumberGenerator()
let lookupKeys = (0..<lookupCount).map { _ in Int.random(in: 0..<recordCount, using: &generator) }
var lookupCumulusRates: [Double] = []
var lookupRawRates: [Double] = []
for _ in 0..<rounds {
    lookupCumulusRates.append(
        Double(lookupCount)
            / (try seconds {
                for key in lookupKeys {
                    guard try database.lookup([RecordLookup(name(key))]).first?.record != nil else { fatalError("lookup missed \(key)") }
                }
            }))
    lookupRawRates.append(
        Double(lookupCount) / seconds { for key in lookupKeys where !raw.find(key) { fatalError("raw lookup missed \(key)") } })
}
report(Row(name: "point lookups", cumulus: median(lookupCumulusRates), raw: median(lookupRawRates), unit: "lookups/s"))
print(
    "    rounds CloudStore: \(lookupCumulusRates.map { String(format: "%.0f", $0) }.joined(separator: " / "))  raw: \(lookupRawRates.map { String(format: "%.0f", $0) }.joined(separator: " / "))"
)

@MainActor func latencies(_ body: (Int) throws -> Void) rethrows -> [Double] {
    var result: [Double] = []
    for _ in 0..<queryCount {
        let bucket = Int.random(in: 0..<buckets, using: &generator)
        result.append(try seconds { try body(bucket) } * 1_000)
    }
    return result.sorted()
}
let queryCumulus = try latencies { bucket in
    let page = try database.query(
        QueryRequest(query: Query(recordType: "Note", filters: [QueryFilter(.field("bucket"), .equals, .int64(Int64(bucket)))])))
    guard page.records.count == recordCount / buckets else { fatalError("query returned \(page.records.count)") }
}
let queryRaw = latencies { bucket in
    guard raw.rows(inBucket: bucket) == recordCount / buckets else { fatalError("raw query miscounted") }
}
let categoryCumulus = try latencies { _ in
    let category = Int.random(in: 0..<1_000, using: &generator)
    let page = try database.query(
        QueryRequest(query: Query(recordType: "Note", filters: [QueryFilter(.field("category"), .equals, .int64(Int64(category)))])))
    guard page.records.count == min(200, recordCount / 1_000), (recordCount / 1_000 > 200) == (page.continuationMarker != nil) else {
        fatalError("category query returned \(page.records.count)")
    }
}
print(
    String(
        format: "equality query, %d matches (ms)        CloudStore p50 %.3f p99 %.3f   raw p50 %.3f p99 %.3f",
        recordCount / buckets, percentile(queryCumulus, 0.5), percentile(queryCumulus, 0.99), percentile(queryRaw, 0.5),
        percentile(queryRaw, 0.99)))
print(
    String(
        format: "equality query, first 200 of %d (ms)  CloudStore p50 %.3f p99 %.3f",
        recordCount / 1_000, percentile(categoryCumulus, 0.5), percentile(categoryCumulus, 0.99)))
if ProcessInfo.processInfo.environment["STOREBENCH_KEEP"] != nil {
    print("kept \(directory)")
} else {
    try? FileManager.default.removeItem(atPath: directory)
}
