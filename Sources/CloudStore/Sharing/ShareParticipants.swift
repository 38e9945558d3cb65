/// The users a batch's share saves may name, resolved before the write. An invitation names a
/// user of the container by record name, or anyone by email address: an address is never looked
/// up, so that the answer is the same whether or not a user has it (and whether or not that user
/// is discoverable); it binds to a user only when one with the address accepts.
struct ShareParticipants: Sendable {
    /// User record names of the container's users.
    var users: Set<String> = []

    /// Whom an invitation names.
    enum Invitee: Hashable {
        /// A user of the container, by record name.
        case user(String)
        /// Whoever has this email address, as given.
        case email(String)
    }

    /// Whom `invitation` names.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for an unknown user record name or text that
    ///   is no email address.
    func invitee(_ invitation: ShareChange.Invitation) throws -> Invitee {
        if let name = invitation.userRecordName {
            guard users.contains(name) else { throw CloudStoreError.badRequest("No user of the container is named '\(name)'") }
            return .user(name)
        }
        if let address = invitation.emailAddress {
            guard ShareParticipant.isWellFormedAddress(address) else {
                throw CloudStoreError.badRequest("'\(address)' is not an email address")
            }
            return .email(address)
        }
        throw CloudStoreError.badRequest("A participant needs a userIdentity with a userRecordName or lookupInfo.emailAddress")
    }
}

/// Short GUIDs: the names shares go by outside their zone.
enum ShareGUID {
    /// The characters of a short GUID.
    static let length = 25

    /// Whether `text` could be a short GUID: anything else is refused before storage is asked.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }
}

extension ShareGUID {
    /// A new short GUID: 25 characters of base 62, as CloudKit's (`0NEa3AEPXwK71VM4gHFnvh2kw`),
    /// 148 random bits, so that it cannot be guessed.
    static func make() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        // Bytes of 248 and above are skipped, so that every character is as likely (248 = 4 × 62).
        while characters.count < length {
            for byte in SecureToken.randomBytes(32) where byte < 248 && characters.count < length {
                characters.append(alphabet[Int(byte) % 62])
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }
}
