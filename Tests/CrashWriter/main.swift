// A child process for the crash-safety test: it commits atomic batches to a custom zone and
// prints "committed N" after each commit returns, until it is killed.
//
// Usage: CrashWriter DATA_DIR
// Batch N creates records bN-0 … bN-9 (field `batch` = N) and sets record `progress` to N.
import CloudStore
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: CrashWriter DATA_DIR\n".utf8))
    exit(2)
}
do {
    let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: arguments[1]))
    let container = try ContainerIdentifier("iCloud.com.example.Crash")
    if try store.container(container) == nil { try store.createContainer(container) }
    let database = try store.database(container, .development, .private, as: .user("_crash"))
    if try database.lookupZones(["Z"]).first.map({ if case .zone = $0 { false } else { true } }) ?? true {
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
    }
    var batch: Int64 = 0
    if case .int64(let last)? = try database.lookup([RecordLookup("progress")], zoneName: "Z").first?.record?.fields["last"] {
        batch = last + 1
    }
    while true {
        var operations = (0..<10).map { index in
            RecordOperation(
                .create, recordName: "b\(batch)-\(index)", recordType: "Item",
                fields: ["batch": .int64(batch), "payload": .string(String(repeating: "x", count: 200))])
        }
        operations.append(RecordOperation(.forceUpdate, recordName: "progress", recordType: "Progress", fields: ["last": .int64(batch)]))
        let results = try database.modify(ModifyRequest(operations: operations, zoneName: "Z", atomic: true))
        guard results.allSatisfy({ $0.record != nil }) else {
            FileHandle.standardError.write(Data("batch \(batch) failed: \(results)\n".utf8))
            exit(1)
        }
        FileHandle.standardOutput.write(Data("committed \(batch)\n".utf8))
        batch += 1
    }
} catch {
    FileHandle.standardError.write(Data("CrashWriter: \(error)\n".utf8))
    exit(1)
}
