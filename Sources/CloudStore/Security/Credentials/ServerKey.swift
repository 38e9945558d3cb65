/// A server-to-server key: an EC P-256 public key an operator registered. Requests signed with
/// its private key act with administrator rights in the public database.
public struct ServerKey: Hashable, Sendable {
    /// 64 lowercase hexadecimal characters, sent as `X-Apple-CloudKit-Request-KeyID`.
    public var keyID: String
    /// The container the key opens.
    public var container: ContainerIdentifier
    /// The environment the key opens.
    public var environment: Environment
    /// The public key in PEM (SubjectPublicKeyInfo) form.
    public var publicKeyPEM: String
    /// The user record name changes made with the key are stamped with.
    public var userRecordName: String
    /// A label for people.
    public var name: String
    /// When the key was registered, in milliseconds since 1970.
    public var created: Int64

    /// Creates a key description.
    public init(
        keyID: String, container: ContainerIdentifier, environment: Environment, publicKeyPEM: String, userRecordName: String,
        name: String, created: Int64
    ) {
        self.keyID = keyID
        self.container = container
        self.environment = environment
        self.publicKeyPEM = publicKeyPEM
        self.userRecordName = userRecordName
        self.name = name
        self.created = created
    }

    /// The SHA-256 of the key's normalised DER, 64 hex characters: the same whatever form it was
    /// pasted in, for telling keys apart in lists. Empty if the stored PEM cannot be read.
    public var fingerprint: String {
        (try? ServerPublicKey(pemRepresentation: publicKeyPEM))?.fingerprint ?? ""
    }
}
