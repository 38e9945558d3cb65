/// A single `Range: bytes=…` request (RFC 9110 §14.2), resolved against a file size.
public enum ByteRange {
    /// The outcome of reading a `Range` header.
    public enum Resolution: Equatable, Sendable {
        /// Serve the whole file (no header, an unsupported unit, or several ranges).
        case whole
        /// Serve bytes `lower...upper`.
        case partial(lower: Int64, upper: Int64)
        /// Answer 416.
        case unsatisfiable
    }

    /// Reads a `Range` header against a body of `size` bytes.
    public static func resolve(_ header: String?, size: Int64) -> Resolution {
        guard let header else { return .whole }
        let trimmed = header.trimmingHTTPWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst(6)
        // Several ranges would need multipart/byteranges; serving the whole file is allowed.
        if spec.contains(",") { return .whole }
        guard let dash = spec.firstIndex(of: "-") else { return .unsatisfiable }
        let first = spec[..<dash].trimmingHTTPWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingHTTPWhitespace()
        if first.isEmpty {
            guard let suffix = digits(last), suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(lower: max(0, size - suffix), upper: size - 1)
        }
        guard let lower = digits(first) else { return .unsatisfiable }
        let upper: Int64
        if last.isEmpty {
            upper = size - 1
        } else {
            guard let value = digits(last), value >= lower else { return .unsatisfiable }
            upper = min(value, size - 1)
        }
        guard lower < size else { return .unsatisfiable }
        return .partial(lower: lower, upper: upper)
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
