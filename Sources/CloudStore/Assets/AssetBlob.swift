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
}
