import Glibc

/// An open file descriptor, closed when the last reference goes away.
public final class OpenFile: Sendable {
    /// The descriptor, opened read-only.
    public let descriptor: Int32

    /// Takes ownership of `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Opens `path` read-only; `nil` if it cannot be opened.
    public convenience init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.init(descriptor: fd)
    }

    deinit { close(descriptor) }
}

/// A byte range of an open file to send as a response body.
public struct FileRegion: Sendable {
    /// The file.
    public var file: OpenFile
    /// The first byte to send.
    public var offset: Int64
    /// How many bytes to send.
    public var length: Int64

    /// Creates a region.
    public init(file: OpenFile, offset: Int64, length: Int64) {
        self.file = file
        self.offset = offset
        self.length = length
    }
}
