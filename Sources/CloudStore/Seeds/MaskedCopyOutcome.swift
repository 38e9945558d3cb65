/// What a masked copy from production to development did.
public struct MaskedCopyOutcome: Hashable, Sendable {
    /// Records written into development (created or overwritten).
    public var copied = 0
    /// Records development already held as production has them, left alone.
    public var unchanged = 0
    /// Values of personal fields replaced by fakes (each element of a list counted).
    public var maskedValues = 0
    /// The personal fields masked, as `Type.field`.
    public var maskedFields: [String] = []
    /// Zones made in development for the copy.
    public var zonesCreated: [String] = []
    /// Asset blobs copied.
    public var blobs = 0

    /// Nothing copied yet.
    public init() {}
}
