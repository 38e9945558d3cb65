import CLibPQ

/// The rows one statement returned, in PostgreSQL's binary format, owned until released.
///
/// Statements must not return `numeric` (cast sums to `bigint`) or dates (the store keeps
/// milliseconds as `bigint`): the readers here know integers, floats, texts, bytes and booleans.
final class PostgresResult {
    private let handle: OpaquePointer
    /// How many rows there are.
    let count: Int
    /// How many rows an `INSERT`, `UPDATE` or `DELETE` touched.
    let affectedRows: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        count = Int(PQntuples(handle))
        affectedRows = Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    deinit { PQclear(handle) }

    /// The row at `index`.
    subscript(index: Int) -> PostgresRow { PostgresRow(result: handle, row: Int32(index)) }

    /// Every row, each made into a value by `body`.
    func map<T>(_ body: (PostgresRow) throws -> T) rethrows -> [T] {
        var values: [T] = []
        values.reserveCapacity(count)
        for index in 0..<count { values.append(try body(self[index])) }
        return values
    }

    /// The first row made into a value, or `nil` when there is none.
    func first<T>(_ body: (PostgresRow) throws -> T) rethrows -> T? {
        count == 0 ? nil : try body(self[0])
    }

    /// The first column of the first row as an integer; `nil` when there is no row or it is NULL.
    func scalarInteger() -> Int64? {
        count == 0 || self[0].isNull(0) ? nil : self[0].integer(0)
    }
}

/// One row of a ``PostgresResult``, valid while the result is.
struct PostgresRow {
    fileprivate let result: OpaquePointer
    fileprivate let row: Int32

    /// Whether the column is NULL.
    func isNull(_ column: Int) -> Bool { PQgetisnull(result, row, Int32(column)) == 1 }

    private func bytes(at column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, row, Int32(column)))
        guard let start = PQgetvalue(result, row, Int32(column)) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: length)
    }

    /// An integer column of any width (`smallint`, `integer`, `bigint`, `oid`, `xid8`); 0 for NULL.
    func integer(_ column: Int) -> Int64 {
        let raw = bytes(at: column)
        var value: UInt64 = 0
        for byte in raw { value = value << 8 | UInt64(byte) }
        switch raw.count {
        case 2: return Int64(Int16(truncatingIfNeeded: value))
        case 4:
            return PQftype(result, Int32(column)) == 26 ? Int64(UInt32(truncatingIfNeeded: value)) : Int64(Int32(truncatingIfNeeded: value))
        default: return Int64(bitPattern: value)
        }
    }

    /// An integer column that may be NULL.
    func optionalInteger(_ column: Int) -> Int64? { isNull(column) ? nil : integer(column) }

    /// A `double precision` or `real` column; 0 for NULL.
    func double(_ column: Int) -> Double {
        let raw = bytes(at: column)
        var value: UInt64 = 0
        for byte in raw { value = value << 8 | UInt64(byte) }
        return raw.count == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: value))) : Double(bitPattern: value)
    }

    /// A text column; empty for NULL.
    func text(_ column: Int) -> String {
        let raw = bytes(at: column)
        return String(decoding: raw, as: UTF8.self)
    }

    /// A text column that may be NULL.
    func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }

    /// A `bytea` column's bytes; empty for NULL.
    func blob(_ column: Int) -> [UInt8] { Array(bytes(at: column)) }

    /// A boolean column; false for NULL.
    func bool(_ column: Int) -> Bool {
        let raw = bytes(at: column)
        return raw.count == 1 && raw[0] != 0
    }
}
