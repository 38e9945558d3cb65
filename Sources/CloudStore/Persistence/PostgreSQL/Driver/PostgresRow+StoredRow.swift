extension PostgresRow: StoredRow {
    func isNull(_ column: Int32) -> Bool { isNull(Int(column)) }
    func text(_ column: Int32) -> String { text(Int(column)) }
    func optionalText(_ column: Int32) -> String? { optionalText(Int(column)) }
    func integer(_ column: Int32) -> Int64 { integer(Int(column)) }
    func optionalInteger(_ column: Int32) -> Int64? { optionalInteger(Int(column)) }
    func double(_ column: Int32) -> Double { double(Int(column)) }
    func bool(_ column: Int32) -> Bool { bool(Int(column)) }
    func blob(_ column: Int32) -> [UInt8] { blob(Int(column)) }
}
