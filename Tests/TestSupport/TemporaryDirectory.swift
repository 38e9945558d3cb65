import Foundation

/// A fresh directory under the system's temporary directory, removed when released.
public final class TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory; `prefix` names what it is for.
    public init(prefix: String = "cumulus-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to a file in the directory and returns its path.
    @discardableResult
    public func file(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// A failure raised by a test helper, with what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates a failure.
    public init(_ description: String) { self.description = description }
}

/// Folders of the repository, found from this file's place in it.
public enum Repository {
    /// The package root.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    /// `Templates/`.
    public static var templates: String { root + "/Templates" }
    /// `Public/`.
    public static var publicFiles: String { root + "/Public" }
}
