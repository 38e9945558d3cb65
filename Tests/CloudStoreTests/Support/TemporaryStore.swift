import TestSupport

@testable import CloudStore

extension TemporaryStore {
    /// Saves record types through the environment's storage directly, for test setup.
    func setSchema(_ types: [RecordTypeDefinition], _ environment: Environment = .development) throws {
        try store.environment(container, environment).writeSchema { writer in
            for type in types { try writer.saveRecordType(type) }
        }
    }
}
