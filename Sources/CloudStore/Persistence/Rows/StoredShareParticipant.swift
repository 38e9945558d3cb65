extension ShareParticipant {
    /// A participant from the texts a share's participant row holds, in either backend.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when a text names no known value.
    init(storedUser user: String?, emailAddress: String?, permission: String, type: String, status: String) throws {
        guard let permission = SharePermission(rawValue: permission), let type = ShareParticipant.Kind(rawValue: type),
            let status = ShareParticipant.AcceptanceStatus(rawValue: status)
        else { throw CloudStoreError.internalError("A stored share participant is damaged") }
        self.init(userRecordName: user, emailAddress: emailAddress, permission: permission, type: type, acceptanceStatus: status)
    }
}
