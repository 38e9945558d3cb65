import CloudKitWire
import CloudStore
import Foundation
import Testing

@testable import Console

@Suite struct RecordFormTests {
    /// A type with a field of each kind the form reads from text.
    let note = SchemaView.RecordType(
        name: "Note",
        fields: [
            .init(name: "title", type: .string, isSystem: false, indexes: []),
            .init(name: "pinned", type: .int64, isSystem: false, indexes: []),
            .init(name: "rating", type: .double, isSystem: false, indexes: []),
            .init(name: "place", type: .location, isSystem: false, indexes: []),
        ],
        grants: [])

    /// Every refused value is named beside its own field, not only the first, and a good value is not.
    @Test func everyRefusedValueIsNamedAtItsField() throws {
        let posted = ["title": "Fine", "pinned": "many", "rating": "4.5", "place": "nowhere"]
        let problems = RecordForm.problems(posted, previous: [:], type: note, timeZone: .gmt)
        #expect(Set(problems.keys) == ["pinned", "place"])
        #expect(problems["pinned"] == "pinned: 'many' is not a whole number.")
        #expect(problems["place"]?.hasPrefix("place: 'nowhere' is not a location") == true)
        let inputs = RecordForm.inputs(for: note, values: posted, problems: problems)
        #expect(inputs.map { $0["problem"] as? String } == [nil, problems["pinned"], nil, problems["place"]])
        // The summary at the top names both.
        #expect(throws: ConsoleError.self) { try RecordForm.fields(posted, previous: [:], type: note, timeZone: .gmt) }
        do {
            _ = try RecordForm.fields(posted, previous: [:], type: note, timeZone: .gmt)
        } catch {
            #expect(error.description.contains("pinned:") && error.description.contains("place:"))
        }
    }

    /// Values that fit give no problem and the fields a modify writes.
    @Test func valuesThatFitGiveFields() throws {
        let posted = ["title": "Fine", "pinned": "2", "rating": "", "place": "48.8584, 2.2945"]
        #expect(RecordForm.problems(posted, previous: [:], type: note, timeZone: .gmt).isEmpty)
        let fields = try RecordForm.fields(posted, previous: [:], type: note, timeZone: .gmt)
        #expect(fields["pinned"]?["value"] == .integer(2))
        #expect(fields["rating"] == nil)
    }
}
