/// Appends compact binary primitives (varints, zig-zag integers, length-prefixed strings) to bytes.
struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Zig-zag encoding keeps small negative numbers short.
    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func double(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { buffer in
            varint(UInt64(buffer.count))
            bytes.append(contentsOf: buffer)
        }
    }

    mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func optionalString(_ value: String?) {
        if let value { byte(1); string(value) } else { byte(0) }
    }

    mutating func optionalSigned(_ value: Int64?) {
        if let value { byte(1); signed(value) } else { byte(0) }
    }

    mutating func optionalDouble(_ value: Double?) {
        if let value { byte(1); double(value) } else { byte(0) }
    }
}

/// Reads what ``BinaryWriter`` wrote, refusing to read past the end: any inconsistency throws
/// the error given at creation.
struct BinaryReader {
    let bytes: [UInt8]
    var offset = 0
    let damaged: CloudStoreError

    init(bytes: [UInt8], damaged: CloudStoreError) {
        self.bytes = bytes
        self.damaged = damaged
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw damaged }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw damaged }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A length or count, which can never exceed the bytes left.
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - offset) else { throw damaged }
        return Int(value)
    }

    mutating func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func double() throws -> Double {
        guard bytes.count - offset >= 8 else { throw damaged }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return Double(bitPattern: bits)
    }

    mutating func blob() throws -> [UInt8] {
        let length = try count()
        defer { offset += length }
        return Array(bytes[offset..<offset + length])
    }

    mutating func string() throws -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }

    mutating func optionalString() throws -> String? { try byte() == 1 ? try string() : nil }

    mutating func optionalSigned() throws -> Int64? { try byte() == 1 ? try signed() : nil }

    mutating func optionalDouble() throws -> Double? { try byte() == 1 ? try double() : nil }
}
