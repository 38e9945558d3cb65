import Foundation

/// One field an `assets/upload` request asks to upload a file for.
public struct AssetUploadRequest: Hashable, Sendable {
    /// The record the file is for; a new name when `nil`.
    public var recordName: String?
    /// The record's type.
    public var recordType: String
    /// The asset field.
    public var fieldName: String

    /// Creates a request.
    public init(recordName: String? = nil, recordType: String, fieldName: String) {
        self.recordName = recordName
        self.recordType = recordType
        self.fieldName = fieldName
    }
}

/// Where to post one file: `url` is `<server>/assets/1/upload/<ticket>`.
public struct AssetUploadTicket: Hashable, Sendable {
    /// The record the file is for.
    public var recordName: String
    /// The asset field.
    public var fieldName: String
    /// The sealed ticket the upload URL carries.
    public var ticket: String
}

extension CloudDatabase {
    // MARK: - Assets

    /// Tickets for the upload URLs of `assets/upload`, valid for
    /// ``CloudStoreConfiguration/assetUploadLifetime``; only callers who may change records get them.
    public func assetUploadTickets(_ requests: [AssetUploadRequest]) throws -> [AssetUploadTicket] {
        guard requests.count <= ModifyRequest.maximumOperations else {
            throw CloudStoreError.badRequest(
                "A request may ask for at most \(ModifyRequest.maximumOperations) upload URLs; this one asks for \(requests.count)")
        }
        try policy.checkCanModify()
        let now = store.now
        let user = caller.userRecordName ?? Caller.operatorRecordName
        return try requests.map { request in
            guard !request.recordType.isEmpty, !request.fieldName.isEmpty else {
                throw CloudStoreError.badRequest("Each upload needs a recordType and a fieldName")
            }
            let recordName = request.recordName ?? SecureToken.recordName(at: now)
            guard RecordModifier.isValidRecordName(recordName) else {
                throw CloudStoreError.badRequest("Invalid record name '\(recordName)'")
            }
            let upload = AssetTickets.Upload(
                id: SecureToken.hex(bytes: 16), place: place, user: user, recordType: request.recordType, fieldName: request.fieldName,
                recordName: recordName,
                expires: now + store.configuration.assetUploadLifetime)
            return AssetUploadTicket(
                recordName: recordName, fieldName: request.fieldName, ticket: AssetTickets.seal(upload, with: store.assetSigner))
        }
    }

    /// `assets/rereference`: the asset each named record field holds, with a new receipt, to save
    /// into another record without uploading the file again. A record the caller may not read, or
    /// a field holding no asset, is an error in its place.
    public func rereferenceAssets(_ fields: [(recordName: String, fieldName: String)], zoneName: String = ZoneID.defaultZoneName) throws
        -> [Result<Asset, CloudStoreError>]
    {
        let records = try lookup(fields.map { RecordLookup($0.recordName) }, zoneName: zoneName)
        let now = store.now
        return zip(fields, records).map { field, result in
            switch result {
            case .record(let record):
                guard let asset = record.fields[field.fieldName]?.assets.first, let sha = asset.contentHash, let size = asset.size else {
                    return .failure(.badRequest("Field '\(field.fieldName)' of record '\(field.recordName)' holds no asset"))
                }
                let receipt = AssetTickets.Receipt(
                    place: place, sha: sha, size: size, expires: now + store.configuration.assetReceiptLifetime)
                var answer = asset
                answer.receipt = AssetTickets.seal(receipt, with: store.assetSigner)
                return .success(answer)
            case .failure(_, let error):
                return .failure(error)
            case .deleted, .withheld:
                return .failure(.notFound("Record not found"))
            }
        }
    }

    /// The path, after the server's base URL, of every asset `downloadURL`:
    /// `<base>/assets/1/download/<ticket>/<file name>`. The API serves its route from it.
    public static let assetDownloadPath = "/assets/1/download/"

    /// Where this database's assets belong.
    var place: AssetTickets.Place { AssetTickets.Place(container: container, environment: environment, database: database) }

    /// Results as the caller is given them: each asset with a `downloadURL` made for this caller.
    func present(_ results: [RecordResult]) -> [RecordResult] {
        // Most pages hold no asset: they go out as they are, without a copy of each record.
        guard assetBaseURL != nil, results.contains(where: { $0.record?.holdsAssets == true }) else { return results }
        let records = results.compactMap(\.record)
        let types = contentTypes(of: records)
        return results.map { result in
            guard case .record(let record) = result else { return result }
            return .record(present(record, types: types))
        }
    }

    /// A page of records as the caller is given them, as ``present(_:)-([RecordResult])`` gives
    /// results.
    func present(_ records: [Record]) -> [Record] {
        guard assetBaseURL != nil, records.contains(where: \.holdsAssets) else { return records }
        let types = contentTypes(of: records)
        return records.map { present($0, types: types) }
    }

    /// The media types of the assets `records` hold, by content hash: one read for them all.
    private func contentTypes(of records: [Record]) -> [String: String] {
        let hashes = Set(records.flatMap { $0.fields.values.flatMap(\.assets) }.compactMap(\.contentHash))
        guard !hashes.isEmpty else { return [:] }
        // Only the download's Content-Type hint depends on it: a failed read leaves it out.
        let blobs = (try? storage.read { reader in try hashes.compactMap { try reader.assetBlob($0) } }) ?? []
        return Dictionary(blobs.map { ($0.sha, $0.contentType) }, uniquingKeysWith: { first, _ in first })
    }

    /// A record as the caller is given it: each asset with a `downloadURL` made for this caller,
    /// valid for ``CloudStoreConfiguration/assetDownloadLifetime``, naming the file `${f}`.
    func present(_ record: Record, types: [String: String]? = nil) -> Record {
        guard let base = assetBaseURL, record.holdsAssets else { return record }
        let types = types ?? contentTypes(of: [record])
        let expires = store.now + store.configuration.assetDownloadLifetime
        var presented = record
        func withURL(_ asset: Asset, field: String) -> Asset {
            guard let sha = asset.contentHash else { return asset }
            let ticket = AssetTickets.Download(
                place: place, zoneName: record.zoneID.zoneName, recordName: record.recordName, fieldName: field, sha: sha, caller: caller,
                credential: assetCredential, expires: expires)
            var shown = asset
            // The media type rides along, as Apple's URLs carry their own query after `${f}`.
            let type = types[sha].map { "?type=" + $0.replacingOccurrences(of: "/", with: "%2F") } ?? ""
            shown.downloadURL = "\(base)\(Self.assetDownloadPath)\(AssetTickets.seal(ticket, with: store.assetSigner))/${f}\(type)"
            return shown
        }
        for (name, value) in record.fields where !value.assets.isEmpty {
            presented.fields[name] = value.mappingAssets { withURL($0, field: name) }
        }
        return presented
    }
}
