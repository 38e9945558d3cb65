/// Percent-encoding of values placed in URLs the console builds.
enum URLEncoding {
    /// `value` with every byte but the unreserved ones (RFC 3986: letters, digits, `-._~`)
    /// percent-encoded: safe as a path segment and as a query value.
    static func component(_ value: String) -> String {
        var output = ""
        output.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                output += "%" + String(Unicode.Scalar(hex[Int(byte >> 4)])) + String(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return output
    }

    /// A query string from pairs, leaving out empty values: `?a=1&b=x%20y`, or `""`.
    static func query(_ pairs: [(String, String?)]) -> String {
        let parts = pairs.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return component(name) + "=" + component(value)
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }
}
