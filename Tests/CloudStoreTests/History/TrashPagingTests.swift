import TestSupport
import Testing

@testable import CloudStore

/// The trash listed a page at a time: following `next` reaches every deleted record once,
/// records created again are on no page, and records deleted meanwhile do not shift the pages.
extension RecordHistoryTests {
    @Test func theTrashIsListedAPageAtATimeEachRecordOnce() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        let names = (0..<260).map { "t\($0)" }
        for start in stride(from: 0, to: names.count, by: 100) {
            let batch = Array(names[start..<min(start + 100, names.count)])
            _ = try db.modify(
                ModifyRequest(
                    operations: batch.map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: ["n": .int64(1)]) },
                    zoneName: "Notes"))
            try delete(db, batch)
        }
        // Created again since their deletion: on no page.
        let again = ["t10", "t100", "t101", "t250"]
        for name in again { _ = try save(db, name, ["n": .int64(2)]) }
        _ = try db.modifyZones([ZoneOperation(.delete, zoneName: "Other")])

        var listed: [String] = []
        var after: Int64?
        var pages: [Trash] = []
        repeat {
            let page = try store.store.trash(
                store.container, .development, in: HistoryScope(database: database), limit: 70, after: after, by: .local)
            pages.append(page)
            listed += page.records.map(\.record.recordName)
            #expect(page.records.map(\.id) == page.records.map(\.id).sorted(by: >), "most recently deleted first")
            after = page.next
            if pages.count == 1 {
                // Deleted while the pages are followed: newer than them, so on none of the next.
                _ = try save(db, "late", ["n": .int64(3)])
                try delete(db, ["late"])
            }
        } while after != nil && pages.count < 10
        #expect(pages.map(\.records.count) == [70, 70, 70, 46])
        #expect(listed.count == 256)
        #expect(Set(listed) == Set(names).subtracting(again), "every record in the trash, each once")
        #expect(pages[0].zones.map(\.zoneName) == ["Other"])
        #expect(pages.dropFirst().allSatisfy { $0.zones.isEmpty }, "the deleted zones come with the first page")

        // A fresh first page starts with the latest deletion.
        let fresh = try store.store.trash(store.container, .development, in: HistoryScope(database: database), limit: 1, by: .local)
        #expect(fresh.records.map(\.record.recordName) == ["late"])
        #expect(fresh.next == fresh.records.last?.id)
    }
}
