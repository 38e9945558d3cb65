extension Record {
    /// Calls `body` with each field, in name order: how a record is written, so that the same
    /// record always reads the same.
    ///
    /// The order is worked out in scratch space on the stack for a usual record, not in a new
    /// array: every record written to a response or to storage goes through here.
    public func forEachFieldInNameOrder(_ body: (_ position: Int, _ name: String, _ value: FieldValue) throws -> Void) rethrows {
        try Self.forEachInNameOrder(fields, body)
    }

    /// As ``forEachFieldInNameOrder(_:)``, for fields apart from a record.
    public static func forEachInNameOrder(
        _ fields: [String: FieldValue], _ body: (_ position: Int, _ name: String, _ value: FieldValue) throws -> Void
    ) rethrows {
        try withUnsafeTemporaryAllocation(of: Dictionary<String, FieldValue>.Index.self, capacity: fields.count) { scratch in
            var order = scratch
            var filled = 0
            for index in fields.indices {
                (order.baseAddress! + filled).initialize(to: index)
                filled += 1
            }
            defer { order.baseAddress?.deinitialize(count: filled) }
            order.sort { fields[$0].key < fields[$1].key }
            for (position, index) in order.enumerated() {
                let (name, value) = fields[index]
                try body(position, name, value)
            }
        }
    }
}
