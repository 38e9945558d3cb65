/// An asset's content as storage keeps it: one file per SHA-256, shared by every record holding
/// that content, compressed with zlib when that saves at least a tenth.
struct AssetBlob: Hashable, Sendable {
    /// The SHA-256 of the content, in hex.
    var sha: String
    /// The content's size in bytes.
    var size: Int64
    /// The file's size in bytes.
    var stored: Int64
    /// Whether the file holds the content compressed.
    var compressed: Bool
    /// When it was first uploaded, in milliseconds since 1970.
    var created: Int64
    /// The content's media type, as its first bytes show it.
    var contentType: String = AssetContentType.unknown
}

/// The media type of an asset's content, from its first bytes. Only image types a browser shows
/// safely inline are named; everything else, HTML and SVG included, is an opaque download, so
/// that no upload can run script on this server's origin.
enum AssetContentType {
    /// What an unrecognised content is served as.
    static let unknown = "application/octet-stream"

    /// The media type `content` starts like.
    static func sniff(_ content: [UInt8]) -> String {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            content.count >= offset + prefix.count && Array(content[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        return unknown
    }

    /// Whether a browser may show the type inline.
    static func isImage(_ type: String) -> Bool { type.hasPrefix("image/") }
}
