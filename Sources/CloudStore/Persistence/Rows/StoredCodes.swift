/// The integers both backends store for a database scope and a reference's action: one table
/// of codes, so that a store copied from one backend to the other means the same.
enum StoredCodes {
    /// The code stored for `scope`.
    static func scopeCode(_ scope: DatabaseScope) -> Int64 {
        switch scope {
        case .public: 0
        case .private: 1
        case .shared: 2
        }
    }

    /// The scope `scopeCode(_:)` stored as `code`.
    static func scope(ofCode code: Int64) -> DatabaseScope {
        switch code {
        case 1: .private
        case 2: .shared
        default: .public
        }
    }

    /// The code stored for a reference's `action`.
    static func actionCode(_ action: Reference.Action) -> Int64 {
        switch action {
        case .none: 0
        case .deleteSelf: 1
        case .validate: 2
        }
    }
}
