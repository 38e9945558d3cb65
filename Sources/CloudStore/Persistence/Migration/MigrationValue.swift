import Crypto

/// One field of a copied row, as both databases agree on it: what is written to PostgreSQL
/// and what the checksums of both sides are made of.
enum MigrationValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)

    /// Column `column` of a row of either database, read as `kind`.
    init(_ row: some StoredRow, _ column: Int32, as kind: MigrationTable.Kind) {
        if row.isNull(column) {
            self = .null
            return
        }
        switch kind {
        case .integer: self = .integer(row.integer(column))
        case .real: self = .real(row.double(column))
        case .text: self = .text(row.text(column))
        case .bytes: self = .bytes(row.blob(column))
        case .bool: self = .bool(row.bool(column))
        }
    }

    /// Writes the value as the next field of a copied row.
    func write(to writer: PostgresCopyWriter) {
        switch self {
        case .null: writer.null()
        case .integer(let value): writer.integer(value)
        case .real(let value): writer.double(value)
        case .text(let value): writer.text(value)
        case .bytes(let value): writer.bytes(value)
        case .bool(let value): writer.bool(value)
        }
    }

    /// The text, for a text value.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The number, for an integer value.
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}

/// The row count and SHA-256 of a table's rows, each field typed and length-prefixed, so
/// that two sides agree only when every row and field does, in the same order.
struct MigrationChecksum: Sendable, Equatable {
    private var hasher = SHA256()
    /// Rows added.
    private(set) var rows = 0

    static func == (a: Self, b: Self) -> Bool { a.rows == b.rows && a.digest == b.digest }

    mutating func add(_ row: [MigrationValue]) {
        rows += 1
        var bytes: [UInt8] = []
        for value in row {
            switch value {
            case .null: bytes.append(0)
            case .integer(let number): bytes.append(1); append(UInt64(bitPattern: number), to: &bytes)
            case .real(let number): bytes.append(2); append(number.bitPattern, to: &bytes)
            case .text(let text): bytes.append(3); append(UInt64(text.utf8.count), to: &bytes); bytes.append(contentsOf: text.utf8)
            case .bytes(let data): bytes.append(4); append(UInt64(data.count), to: &bytes); bytes.append(contentsOf: data)
            case .bool(let flag): bytes.append(5); bytes.append(flag ? 1 : 0)
            }
        }
        bytes.append(0xFF)
        hasher.update(data: bytes)
    }

    private func append(_ number: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
    }

    /// The checksum, as hex (the first 16 digits of the SHA-256).
    var digest: String {
        String(SecureToken.hexString(Array(hasher.finalize())).prefix(16))
    }
}
