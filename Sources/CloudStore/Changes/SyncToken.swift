/// A position in a zone's change log, as clients hold it: opaque and sealed, carrying the
/// store's incarnation so that a token from before a restore or reset is recognised as stale.
struct SyncToken: Hashable, Sendable {
    /// The store's incarnation when the token was made.
    var incarnation: String
    /// Storage's key of the zone.
    var zoneKey: Int64
    /// The last change sequence the holder has seen.
    var sequence: Int64

    private static let format: UInt8 = 1

    /// The sealed string form.
    func encoded(with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Self.format)
        writer.string(incarnation)
        writer.signed(zoneKey)
        writer.signed(sequence)
        return signer.seal(writer.bytes)
    }

    /// Opens a sealed token.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is malformed or forged.
    static func decode(_ text: String, with signer: OpaqueTokenSigner) throws -> SyncToken {
        let invalid = CloudStoreError.badRequest("The sync token is not valid")
        guard let payload = signer.open(text) else { throw invalid }
        var reader = BinaryReader(bytes: payload, damaged: invalid)
        guard try reader.byte() == format else { throw invalid }
        let token = SyncToken(incarnation: try reader.string(), zoneKey: try reader.signed(), sequence: try reader.signed())
        guard reader.isAtEnd else { throw invalid }
        return token
    }
}
