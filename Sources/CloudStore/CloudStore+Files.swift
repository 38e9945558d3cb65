import Foundation

extension CloudStore {
    /// Creates a directory readable by its owner alone (0700), with any missing parents; an
    /// existing one is left as it is (``permissionWarnings()`` reports it if others can read it).
    static func makePrivateDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CloudStoreError.internalError("Cannot create the directory \(path): \(error)")
        }
    }

    /// A new hidden directory private to its owner in `parent` (on its file system, for renames).
    static func privateDirectory(in parent: String, _ purpose: String) throws -> String {
        var template = Array("\(parent)/.cumulus-\(purpose)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CloudStoreError.internalError("Cannot make a directory in \(parent): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// Replaces the server secret: every web auth token, continuation marker and sync token made
    /// with the old one stops opening (users sign in again; clients refetch). Sessions, API
    /// tokens, keys and data stay. A server running on this directory keeps the old secret until
    /// it restarts, so stop it first.
    public func rotateSecret(by actor: OperatorIdentity? = nil) throws {
        try auditedCatalogChange(actor, "secret.rotate", container: nil, target: "server secret") { try catalog.rotateSecret() }
    }

    /// What in the data directory others than its owner may read or write: the catalog holds
    /// the server secret and every database holds users' data. One line per finding, saying how
    /// to fix it; empty when all is private.
    public func permissionWarnings() -> [String] {
        let root = configuration.dataDirectory
        var findings: [String] = []
        let manager = FileManager.default
        var paths = [root]
        if let enumerator = manager.enumerator(atPath: root) {
            for case let relative as String in enumerator { paths.append(root + "/" + relative) }
        }
        for path in paths {
            guard let mode = (try? manager.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else { continue }
            if mode & 0o077 != 0 {
                findings.append(String(format: "%@ is accessible to others (mode %o)", path, mode & 0o777))
            }
        }
        guard !findings.isEmpty else { return [] }
        return findings.prefix(10) + [
            "The data directory holds the server's secret and every user's data; make it private: chmod -R go-rwx \(root)"
        ]
    }
}
