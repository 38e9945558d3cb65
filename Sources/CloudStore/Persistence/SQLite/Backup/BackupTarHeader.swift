import Foundation

/// The 512-byte ustar header of one regular file in a backup archive: its name (split into
/// prefix and name where longer than 100 bytes; past what those hold, a pax extended header
/// before it carries the path), mode 0600, its size (octal, or base-256 past 8 GiB as GNU tar
/// writes it), the time it was written and its checksum.
enum BackupTarHeader {
    /// Tar's block size: headers and the padding after each member's data.
    static let block = 512

    /// The header of the file `name` of `size` bytes: one ustar header, or, for a path longer
    /// than ustar holds (a container's identifier may be long), a pax extended header carrying
    /// the path first, its record and padding, then the ustar header with a shortened name, as
    /// POSIX tar (and every tar since) writes and reads it.
    static func make(name: String, size: UInt64) throws -> Data {
        if let fits = ustar(name: name, size: size, type: "0") { return fits }
        let record = paxRecord("path", name)
        let shortened = String(decoding: Array(name.utf8).suffix(90), as: UTF8.self).replacingOccurrences(of: "/", with: "_")
        guard let extended = ustar(name: "PaxHeader/" + shortened, size: UInt64(record.count), type: "x"),
            let file = ustar(name: shortened, size: size, type: "0")
        else { throw CloudStoreError.internalError("The path \(name) cannot be written in the backup archive") }
        let padding = (block - record.count % block) % block
        return extended + record + Data(count: padding) + file
    }

    /// `key=value` as a pax record: its length in decimal (itself included), a space, the pair
    /// and a newline.
    static func paxRecord(_ key: String, _ value: String) -> Data {
        let body = " \(key)=\(value)\n"
        var length = body.utf8.count + 1
        while String(length).count + body.utf8.count != length { length = String(length).count + body.utf8.count }
        return Data((String(length) + body).utf8)
    }

    /// The `path` a pax extended header's records give, if any.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for records that are not in pax form.
    static func paxPath(_ data: Data) throws -> String? {
        var bytes = Array(data)[...]
        var path: String?
        while !bytes.isEmpty {
            guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
                let length = Int(String(decoding: bytes[bytes.startIndex..<space], as: UTF8.self)),
                length > space - bytes.startIndex + 1, length <= bytes.count, bytes[bytes.startIndex + length - 1] == UInt8(ascii: "\n")
            else { throw CloudStoreError.badRequest("an extended header is damaged") }
            let pair = String(decoding: bytes[(space + 1)..<(bytes.startIndex + length - 1)], as: UTF8.self)
            if pair.hasPrefix("path=") { path = String(pair.dropFirst("path=".count)) }
            bytes = bytes[(bytes.startIndex + length)...]
        }
        return path
    }

    /// One ustar header of type `type`, or `nil` when `name` does not fit its name and prefix.
    private static func ustar(name: String, size: UInt64, type: Character) -> Data? {
        var header = [UInt8](repeating: 0, count: block)
        let bytes = Array(name.utf8)
        var prefix: [UInt8] = []
        var short = bytes
        if bytes.count > 100 {
            // The last `/` that leaves at most 100 bytes after it and 155 before it.
            guard
                let cut = bytes.indices.last(where: { bytes[$0] == UInt8(ascii: "/") && bytes.count - $0 - 1 <= 100 && $0 <= 155 })
            else { return nil }
            prefix = Array(bytes[..<cut])
            short = Array(bytes[(cut + 1)...])
        }
        put(short, at: 0, in: &header)
        put(Array("0000600\0".utf8), at: 100, in: &header)
        put(Array("0000000\0".utf8), at: 108, in: &header)
        put(Array("0000000\0".utf8), at: 116, in: &header)
        if size < 0o77777777777 {
            put(octal(size, digits: 11) + [0], at: 124, in: &header)
        } else {
            header[124] = 0x80
            for index in 0..<8 { header[135 - index] = UInt8(truncatingIfNeeded: size >> (8 * UInt64(index))) }
        }
        put(octal(UInt64(max(0, Date().timeIntervalSince1970)), digits: 11) + [0], at: 136, in: &header)
        header[156] = type.asciiValue ?? UInt8(ascii: "0")
        put(Array("ustar\0".utf8), at: 257, in: &header)
        put(Array("00".utf8), at: 263, in: &header)
        put(prefix, at: 345, in: &header)
        let sum = checksum(header)
        put(octal(UInt64(sum), digits: 6) + [0, UInt8(ascii: " ")], at: 148, in: &header)
        return Data(header)
    }

    /// The name and size a header holds, and whether it is a pax extended header (whose data
    /// gives the next member's path); `nil` for a zero block (the archive's end).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a damaged header or a member that is not
    ///   a regular file.
    static func read(_ header: [UInt8]) throws -> (name: String, size: UInt64, extended: Bool)? {
        guard header.count == block else { throw CloudStoreError.badRequest("the archive ends inside a header") }
        if header.allSatisfy({ $0 == 0 }) { return nil }
        guard Array(header[257..<262]) == Array("ustar".utf8) else { throw CloudStoreError.badRequest("a member is not in ustar form") }
        let recorded = UInt64(text(header, 148, 8).trimmingCharacters(in: .whitespaces), radix: 8)
        guard recorded == UInt64(checksum(header)) else { throw CloudStoreError.badRequest("a header's checksum does not match") }
        let extended = header[156] == UInt8(ascii: "x")
        guard header[156] == UInt8(ascii: "0") || header[156] == 0 || extended else {
            throw CloudStoreError.badRequest("a member is not a regular file")
        }
        var size: UInt64 = 0
        if header[124] == 0x80 {
            for index in 128..<136 { size = size << 8 | UInt64(header[index]) }
        } else {
            guard let parsed = UInt64(text(header, 124, 12).trimmingCharacters(in: .whitespaces), radix: 8) else {
                throw CloudStoreError.badRequest("a member's size is not a number")
            }
            size = parsed
        }
        let prefix = text(header, 345, 155)
        let name = text(header, 0, 100)
        return (prefix.isEmpty ? name : prefix + "/" + name, size, extended)
    }

    /// `value` in octal ASCII, zero-padded to `digits`.
    private static func octal(_ value: UInt64, digits: Int) -> [UInt8] {
        let text = String(value, radix: 8)
        return Array((String(repeating: "0", count: max(0, digits - text.count)) + text).utf8)
    }

    private static func put(_ bytes: [UInt8], at offset: Int, in header: inout [UInt8]) {
        for (index, byte) in bytes.enumerated() { header[offset + index] = byte }
    }

    /// The field at `offset`, up to its first NUL.
    private static func text(_ header: [UInt8], _ offset: Int, _ length: Int) -> String {
        let field = header[offset..<(offset + length)]
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The sum of the header's bytes with the checksum field read as spaces.
    private static func checksum(_ header: [UInt8]) -> Int {
        header.enumerated().reduce(0) { sum, entry in sum + ((148..<156).contains(entry.offset) ? 32 : Int(entry.element)) }
    }
}
