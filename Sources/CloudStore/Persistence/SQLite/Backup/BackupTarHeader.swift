import Foundation

/// The 512-byte ustar header of one regular file in a backup archive: its name (split into
/// prefix and name where longer than 100 bytes), mode 0600, its size (octal, or base-256 past
/// 8 GiB as GNU tar writes it), the time it was written and its checksum.
enum BackupTarHeader {
    /// Tar's block size: headers and the padding after each member's data.
    static let block = 512

    /// The header of the file `name` of `size` bytes.
    static func make(name: String, size: UInt64) throws -> Data {
        var header = [UInt8](repeating: 0, count: block)
        let bytes = Array(name.utf8)
        var prefix: [UInt8] = []
        var short = bytes
        if bytes.count > 100 {
            // The last `/` that leaves at most 100 bytes after it and 155 before it.
            guard
                let cut = bytes.indices.last(where: { bytes[$0] == UInt8(ascii: "/") && bytes.count - $0 - 1 <= 100 && $0 <= 155 })
            else { throw CloudStoreError.internalError("The path \(name) is too long for the backup archive") }
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
        header[156] = UInt8(ascii: "0")
        put(Array("ustar\0".utf8), at: 257, in: &header)
        put(Array("00".utf8), at: 263, in: &header)
        put(prefix, at: 345, in: &header)
        let sum = checksum(header)
        put(octal(UInt64(sum), digits: 6) + [0, UInt8(ascii: " ")], at: 148, in: &header)
        return Data(header)
    }

    /// The name and size a header holds, or `nil` for a zero block (the archive's end).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a damaged header or a member that is not
    ///   a regular file.
    static func read(_ header: [UInt8]) throws -> (name: String, size: UInt64)? {
        guard header.count == block else { throw CloudStoreError.badRequest("the archive ends inside a header") }
        if header.allSatisfy({ $0 == 0 }) { return nil }
        guard Array(header[257..<262]) == Array("ustar".utf8) else { throw CloudStoreError.badRequest("a member is not in ustar form") }
        let recorded = UInt64(text(header, 148, 8).trimmingCharacters(in: .whitespaces), radix: 8)
        guard recorded == UInt64(checksum(header)) else { throw CloudStoreError.badRequest("a header's checksum does not match") }
        guard header[156] == UInt8(ascii: "0") || header[156] == 0 else {
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
        return (prefix.isEmpty ? name : prefix + "/" + name, size)
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
