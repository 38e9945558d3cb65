/// Record change tags: short opaque strings, as CloudKit's (`"1e"`, `"d"`), made from the change
/// log sequence of the save, so every save of a record in its zone gets a new one.
enum ChangeTag {
    static func make(_ sequence: Int64) -> String { String(sequence, radix: 36) }
}
