/// The sealed tickets of the asset flow, opaque to clients and bound to where they were made:
/// an upload ticket in each `assets/upload` URL, a receipt for each upload, a download ticket in
/// each `downloadURL`. Each carries its expiry.
enum AssetTickets {
    /// Where an asset belongs: a container's environment and one database of it.
    struct Place: Hashable, Sendable {
        var container: ContainerIdentifier
        var environment: Environment
        var database: DatabaseID
    }

    /// What an upload URL allows: one file for one field of one record type. `id` names the
    /// ticket once it is used: a second file is refused.
    struct Upload: Hashable, Sendable {
        var id: String
        var place: Place
        var user: String
        var recordType: String
        var fieldName: String
        var recordName: String
        var expires: Int64
    }

    /// What an upload produced: a blob of this database, which a record of it may take.
    struct Receipt: Hashable, Sendable {
        var place: Place
        var sha: String
        var size: Int64
        var expires: Int64
    }

    /// What a download URL names: a record's asset field, fetched by the caller it was made for
    /// while the credential it was made under holds.
    struct Download: Hashable, Sendable {
        var place: Place
        var zoneName: String
        var recordName: String
        var fieldName: String
        var sha: String
        var caller: Caller
        var credential: AssetCredential
        var expires: Int64
    }

    private enum Kind: UInt8 {
        case upload = 1
        case receipt = 2
        case download = 3
    }

    private static func write(_ place: Place, into writer: inout BinaryWriter) {
        writer.string(place.container.rawValue)
        writer.string(place.environment.rawValue)
        writer.string(place.database.scope.rawValue)
        writer.string(place.database.owner)
    }

    private static func readPlace(_ reader: inout BinaryReader, invalid: CloudStoreError) throws -> Place {
        let container = try ContainerIdentifier(try reader.string())
        guard let environment = Environment(rawValue: try reader.string()), let scope = DatabaseScope(rawValue: try reader.string()) else {
            throw invalid
        }
        let owner = try reader.string()
        return Place(
            container: container, environment: environment, database: scope == .public ? .public : DatabaseID(scope: scope, owner: owner))
    }

    private static func write(_ caller: Caller, into writer: inout BinaryWriter) {
        switch caller {
        case .world: writer.byte(0)
        case .user(let name, _): writer.byte(1); writer.string(name)
        case .server(let name): writer.byte(2); writer.string(name)
        case .operator(let name): writer.byte(3); writer.string(name)
        }
    }

    private static func readCaller(_ reader: inout BinaryReader, invalid: CloudStoreError) throws -> Caller {
        switch try reader.byte() {
        case 0: return .world
        case 1: return .user(try reader.string())
        case 2: return .server(try reader.string())
        case 3: return .operator(try reader.string())
        default: throw invalid
        }
    }

    private static func write(_ credential: AssetCredential, into writer: inout BinaryWriter) {
        switch credential {
        case .none: writer.byte(0)
        case .webSession(let id): writer.byte(1); writer.string(id)
        case .operatorSession(let id): writer.byte(2); writer.string(id)
        case .managementToken(let id): writer.byte(3); writer.string(id)
        }
    }

    private static func readCredential(_ reader: inout BinaryReader, invalid: CloudStoreError) throws -> AssetCredential {
        switch try reader.byte() {
        case 0: return .none
        case 1: return .webSession(try reader.string())
        case 2: return .operatorSession(try reader.string())
        case 3: return .managementToken(try reader.string())
        default: throw invalid
        }
    }

    static func seal(_ upload: Upload, with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Kind.upload.rawValue)
        writer.string(upload.id)
        write(upload.place, into: &writer)
        for text in [upload.user, upload.recordType, upload.fieldName, upload.recordName] { writer.string(text) }
        writer.signed(upload.expires)
        return signer.seal(writer.bytes)
    }

    static func seal(_ receipt: Receipt, with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Kind.receipt.rawValue)
        write(receipt.place, into: &writer)
        writer.string(receipt.sha)
        writer.signed(receipt.size)
        writer.signed(receipt.expires)
        return signer.seal(writer.bytes)
    }

    static func seal(_ download: Download, with signer: OpaqueTokenSigner) -> String {
        var writer = BinaryWriter()
        writer.byte(Kind.download.rawValue)
        write(download.place, into: &writer)
        for text in [download.zoneName, download.recordName, download.fieldName, download.sha] { writer.string(text) }
        write(download.caller, into: &writer)
        write(download.credential, into: &writer)
        writer.signed(download.expires)
        return signer.seal(writer.bytes)
    }

    /// Opens an upload ticket that has not expired at `now`.
    static func upload(_ text: String, with signer: OpaqueTokenSigner, now: Int64) throws -> Upload {
        let invalid = CloudStoreError.notFound("The upload URL is not valid")
        var reader = try open(text, .upload, signer, invalid)
        let upload = Upload(
            id: try reader.string(), place: try readPlace(&reader, invalid: invalid), user: try reader.string(),
            recordType: try reader.string(),
            fieldName: try reader.string(), recordName: try reader.string(), expires: try reader.signed())
        guard reader.isAtEnd else { throw invalid }
        guard upload.expires > now else { throw CloudStoreError.badRequest("The upload URL has expired; ask assets/upload for another") }
        return upload
    }

    /// Opens a receipt; `nil` when it is not one this server made.
    static func receipt(_ text: String, with signer: OpaqueTokenSigner) -> Receipt? {
        let invalid = CloudStoreError.badRequest("")
        guard var reader = try? open(text, .receipt, signer, invalid),
            let place = try? readPlace(&reader, invalid: invalid), let sha = try? reader.string(), let size = try? reader.signed(),
            let expires = try? reader.signed(), reader.isAtEnd
        else { return nil }
        return Receipt(place: place, sha: sha, size: size, expires: expires)
    }

    /// Opens a download ticket that has not expired at `now`.
    static func download(_ text: String, with signer: OpaqueTokenSigner, now: Int64) throws -> Download {
        let invalid = CloudStoreError.notFound("The download URL is not valid")
        var reader = try open(text, .download, signer, invalid)
        let download = Download(
            place: try readPlace(&reader, invalid: invalid), zoneName: try reader.string(), recordName: try reader.string(),
            fieldName: try reader.string(), sha: try reader.string(), caller: try readCaller(&reader, invalid: invalid),
            credential: try readCredential(&reader, invalid: invalid), expires: try reader.signed())
        guard reader.isAtEnd else { throw invalid }
        guard download.expires > now else {
            throw CloudStoreError.notFound("The download URL has expired; fetch the record again for a new one")
        }
        return download
    }

    private static func open(_ text: String, _ kind: Kind, _ signer: OpaqueTokenSigner, _ invalid: CloudStoreError) throws -> BinaryReader {
        guard let payload = signer.open(text) else { throw invalid }
        var reader = BinaryReader(bytes: payload, damaged: invalid)
        guard try reader.byte() == kind.rawValue else { throw invalid }
        return reader
    }
}
