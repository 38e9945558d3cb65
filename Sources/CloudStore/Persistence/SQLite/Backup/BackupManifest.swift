import Crypto
import Foundation

/// What a backup file of a data directory holds, written as `manifest.json`, the archive's last
/// member: the format and its version, the program that wrote it, when, whether asset blobs are
/// in it, and every other member with its size and SHA-256. A restore checks every member against
/// it before anything is replaced.
struct BackupManifest: Codable, Equatable {
    /// One member of the archive.
    struct File: Codable, Equatable {
        /// Its path in the archive, relative to the data directory (assets kept in another
        /// directory under `assets/`).
        var path: String
        var bytes: Int64
        /// Its SHA-256, in lowercase hex.
        var sha256: String
    }

    /// The member that holds the manifest.
    static let memberName = "manifest.json"
    /// What `format` says of every backup of a data directory.
    static let formatName = "cumulus-sqlite-backup"
    /// The version of the format this program writes and reads.
    static let currentVersion = 1

    var format = formatName
    var formatVersion = currentVersion
    /// The version of cumulus that wrote the backup.
    var cumulusVersion: String
    /// When the snapshot was taken, in ISO 8601 (UTC).
    var created: String
    /// Whether the asset blobs are in the backup.
    var assets: Bool
    var files: [File]

    /// The manifest as stored: JSON with sorted keys.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a manifest this program can restore.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is not one.
    static func decode(_ data: Data) throws -> BackupManifest {
        guard let manifest = try? JSONDecoder().decode(BackupManifest.self, from: data), manifest.format == formatName else {
            throw CloudStoreError.badRequest("its manifest is damaged or not a cumulus manifest")
        }
        guard manifest.formatVersion <= currentVersion else {
            throw CloudStoreError.badRequest(
                "it was written in format \(manifest.formatVersion) by cumulus \(manifest.cumulusVersion); this cumulus reads format \(currentVersion)"
            )
        }
        return manifest
    }

    /// A digest in lowercase hex.
    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
