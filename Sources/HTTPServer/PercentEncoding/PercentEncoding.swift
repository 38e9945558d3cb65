/// Percent-encoding of URL components: path segments and query names and values.
public enum PercentEncoding {
    /// `text` with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`) written as
    /// `%XX`, so it can stand as a query name or value: web auth tokens carry `+`, `/` and `=`,
    /// which must reach the client unchanged (CloudKit JS encodes with `encodeURIComponent`).
    public static func encodeComponent(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }
}
