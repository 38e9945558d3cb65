import CloudStore
import Foundation
import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

extension ManagementAPI {
    /// The server's backups in its backup location: listed, taken now, downloaded, deleted; a zone
    /// or a record type restored from one into the running server.
    static let backupRoutes: [ManagementRoute] = [
        .json(.get, "/backups", "backups", needs: .reads(.backups)) { actions, _, actor in try actions.backups(as: actor).json },
        .json(.post, "/backups", "takeBackup", needs: .changes(.backups), status: .created) { actions, _, actor in
            try actions.takeBackup(as: actor).json
        },
        .response(.get, "/backups/:backup", "downloadBackup", needs: .reads(.backups), body: .raw) { api, input, actor in
            let name = input.path("backup")
            return backupDownload(name, try api.actions.downloadBackup(name, as: actor))
        },
        .json(.delete, "/backups/:backup", "deleteBackup", needs: .changes(.backups)) { actions, input, actor in
            try actions.deleteBackup(input.path("backup"), as: actor).json
        },
        .json(.post, "/containers/:container/:environment/:database/restore-from-backup", "restoreFromBackup", needs: .changes(.backups)) {
            actions, input, actor in
            try actions.restoreFromBackup(
                try input.string("backup"), in: try input.container(), environment: try input.environment(), database: try input.database(),
                user: try input.optionalString("user") ?? input.query("user"), zone: try input.optionalString("zone"),
                type: try input.optionalString("type"), dryRun: try input.optionalBool("dryRun") ?? false, as: actor
            ).json
        },
    ]

    /// A backup as a download: its file (or a bucket's object copied into a file) sent from
    /// the disk as it is read.
    static func backupDownload(_ name: String, _ content: BackupContent) -> HTTPResponse {
        let file = OpenFile(path: content.path)
        if case .copy(let copy) = content {
            // Open already, or failed: the copy's folder goes either way.
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: copy).deletingLastPathComponent().path)
        }
        guard let file else { return HTTPResponse(status: .notFound, bytes: []) }
        var status = stat()
        let size = fstat(file.descriptor, &status) == 0 ? Int64(status.st_size) : 0
        var response = HTTPResponse(status: .ok, body: .file(FileRegion(file: file, offset: 0, length: size)))
        response.headers["Content-Type"] = "application/octet-stream"
        response.headers["Content-Disposition"] = "attachment; filename=\"\(name)\""
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
