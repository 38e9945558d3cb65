/// A position in a zone's change log, as clients hold it: opaque and sealed, carrying the
/// store's incarnation so that a token from before a restore or reset is recognised as stale.
struct SyncToken: Hashable, Sendable {
    /// The store's incarnation when the token was made.
    var incarnation: String
    /// Storage's key of the zone.
    var zoneKey: Int64
    /// The last change sequence the holder has seen.
    var sequence: Int64
    /// In the middle of a `reverse` fetch: the changes after `upper` up to `final` were handed
    /// out (newest first), those after `sequence` up to `upper` are still to come.
    var reverse: (upper: Int64, final: Int64)?

    private static let format: UInt8 = 1
    /// A token in the middle of a `reverse` fetch.
    private static let reverseFormat: UInt8 = 3

    init(incarnation: String, zoneKey: Int64, sequence: Int64, reverse: (upper: Int64, final: Int64)? = nil) {
        self.incarnation = incarnation
        self.zoneKey = zoneKey
        self.sequence = sequence
        self.reverse = reverse
    }

    static func == (left: SyncToken, right: SyncToken) -> Bool {
        left.incarnation == right.incarnation && left.zoneKey == right.zoneKey && left.sequence == right.sequence
            && left.reverse?.upper == right.reverse?.upper && left.reverse?.final == right.reverse?.final
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(incarnation)
        hasher.combine(zoneKey)
        hasher.combine(sequence)
        hasher.combine(reverse?.upper)
        hasher.combine(reverse?.final)
    }

    /// The sealed string form.
    func encoded(with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(reverse == nil ? Self.format : Self.reverseFormat)
        writer.string(incarnation)
        writer.signed(zoneKey)
        writer.signed(sequence)
        if let reverse {
            writer.signed(reverse.upper)
            writer.signed(reverse.final)
        }
        return signer.seal(writer.bytes)
    }

    /// Opens a sealed token.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is malformed or forged.
    static func decode(_ text: String, with signer: OpaqueTokenSigner) throws -> SyncToken {
        let invalid = CloudStoreError.badRequest("The sync token is not valid")
        guard let payload = signer.open(text) else { throw invalid }
        var reader = BinaryReader(bytes: payload, damaged: invalid)
        let kind = try reader.byte()
        guard kind == format || kind == reverseFormat else { throw invalid }
        var token = SyncToken(incarnation: try reader.string(), zoneKey: try reader.signed(), sequence: try reader.signed())
        if kind == reverseFormat {
            let (upper, final) = (try reader.signed(), try reader.signed())
            guard token.sequence <= upper, upper <= final else { throw invalid }
            token.reverse = (upper, final)
        }
        guard reader.isAtEnd else { throw invalid }
        return token
    }
}
