/// One operator action in the audit trail: who did what to which thing, when.
public struct AuditEntry: Hashable, Sendable {
    /// The entry's place in the trail: later entries have larger ids. 0 until stored.
    public var id: Int64 = 0
    /// When, in milliseconds since 1970.
    public var time: Int64
    /// Who: an operator (`alice`), a management token (`alice (token 1f2e…)`) or the local
    /// command line.
    public var actor: String
    /// The operator's name alone, for filtering (`local` for the command line).
    public var operatorName: String
    /// The container acted on; `nil` for server-wide actions (management tokens).
    public var container: String?
    /// The environment acted in, when there is one.
    public var environment: String?
    /// What was done, such as `record.delete`, `schema.deploy`, `token.create`.
    public var action: String
    /// What it was done to: a record name, a user, a field, a token's name.
    public var target: String
    /// Where the operator acted from: the client's address, as the request log names it
    /// (through a trusted proxy, the client behind it); `nil` for the local command line.
    public var clientAddress: String?

    /// Creates an entry.
    public init(
        time: Int64, actor: String, operatorName: String, container: String?, environment: String?, action: String, target: String,
        clientAddress: String? = nil
    ) {
        self.time = time
        self.actor = actor
        self.operatorName = operatorName
        self.container = container
        self.environment = environment
        self.action = action
        self.target = target
        self.clientAddress = clientAddress
    }
}

/// Which audit entries to read: each given criterion must hold; newest first, before `before`.
public struct AuditFilter: Hashable, Sendable {
    /// Entries of this operator only.
    public var operatorName: String?
    /// Entries about this container only.
    public var container: String?
    /// Entries whose action begins with this (`record.` for every record action).
    public var action: String?
    /// Entries before the one with this id (a page's continuation); the newest when `nil`.
    public var before: Int64?
    /// At most this many.
    public var limit: Int

    /// Creates a filter.
    public init(operatorName: String? = nil, container: String? = nil, action: String? = nil, before: Int64? = nil, limit: Int = 100) {
        self.operatorName = operatorName
        self.container = container
        self.action = action
        self.before = before
        self.limit = limit
    }
}
