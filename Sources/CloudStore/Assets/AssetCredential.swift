/// The credential an asset download URL was handed out under: the URL works only while it
/// holds, so that signing out, a new password or removal ends the URLs as well.
public enum AssetCredential: Hashable, Sendable {
    /// None: the world, a server-to-server key, or the local command line.
    case none
    /// An app user's session (``WebSession/id``).
    case webSession(String)
    /// An operator's console session (``OperatorSession/id``).
    case operatorSession(String)
    /// An operator's management token (``ManagementToken/id``).
    case managementToken(String)
}

extension CloudStore {
    /// Refuses a download URL whose credential no longer holds: its session ended (signed out,
    /// a new password, removal, idle or maximum age) or its token was revoked. A signed-in
    /// user's URL must name their own session in `container`.
    func checkStillHeld(_ credential: AssetCredential, by caller: Caller, in container: ContainerIdentifier) throws {
        let ended = CloudStoreError.notFound("The download URL ended with the session it was made for; fetch the record again")
        let time = now
        do {
            switch credential {
            case .none:
                guard caller.signedInUser == nil else { throw ended }
            case .webSession(let id):
                let (session, lastSeen) = try storedSession(id)
                guard session.userRecordName == caller.signedInUser, session.container == container else { throw ended }
                try checkOpen(session, stored: lastSeen, issued: 0, at: time)
            case .operatorSession(let id):
                _ = try openOperatorSession(id, at: time)
            case .managementToken(let id):
                guard try operatorStorage.managementToken(id) != nil else { throw ended }
            }
        } catch CloudStoreError.authenticationRequired {
            throw ended
        }
    }
}
