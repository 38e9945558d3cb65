/// A position in a database's zone log, as `changes/database` hands it out: opaque and sealed
/// like ``SyncToken``, and bound to the database it was made for.
struct DatabaseSyncToken: Hashable, Sendable {
    /// The store's incarnation when the token was made.
    var incarnation: String
    /// The database's scope, as storage codes it.
    var scope: UInt8
    /// The database's owner.
    var owner: String
    /// The last zone log sequence the holder has seen.
    var sequence: Int64

    // Not ``SyncToken``'s format, so that neither kind of token opens as the other.
    private static let format: UInt8 = 2

    init(incarnation: String, database: DatabaseID, sequence: Int64) {
        self.incarnation = incarnation
        scope = Self.code(database.scope)
        owner = database.owner
        self.sequence = sequence
    }

    private init(incarnation: String, scope: UInt8, owner: String, sequence: Int64) {
        self.incarnation = incarnation
        self.scope = scope
        self.owner = owner
        self.sequence = sequence
    }

    /// Whether the token was made for `database`.
    func belongs(to database: DatabaseID) -> Bool { scope == Self.code(database.scope) && owner == database.owner }

    private static func code(_ scope: DatabaseScope) -> UInt8 {
        switch scope {
        case .public: 0
        case .private: 1
        case .shared: 2
        }
    }

    /// The sealed string form.
    func encoded(with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Self.format)
        writer.string(incarnation)
        writer.byte(scope)
        writer.string(owner)
        writer.signed(sequence)
        return signer.seal(writer.bytes)
    }

    /// Opens a sealed token.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is malformed or forged.
    static func decode(_ text: String, with signer: OpaqueTokenSigner) throws -> DatabaseSyncToken {
        let invalid = CloudStoreError.badRequest("The sync token is not valid")
        guard let payload = signer.open(text) else { throw invalid }
        var reader = BinaryReader(bytes: payload, damaged: invalid)
        guard try reader.byte() == format else { throw invalid }
        let token = DatabaseSyncToken(
            incarnation: try reader.string(), scope: try reader.byte(), owner: try reader.string(), sequence: try reader.signed())
        guard reader.isAtEnd else { throw invalid }
        return token
    }
}
