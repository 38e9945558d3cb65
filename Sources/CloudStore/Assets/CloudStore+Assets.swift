/// What an upload gives back, CloudKit's `singleFile` dictionary: the value to save in the field.
public struct UploadedAsset: Hashable, Sendable {
    /// The base64 SHA-256 of the content.
    public var fileChecksum: String
    /// The content's size in bytes.
    public var size: Int64
    /// The receipt `records/modify` takes, valid for ``CloudStoreConfiguration/assetReceiptLifetime``.
    public var receipt: String
}

/// Where an asset upload or download counts: its container's environment and database, and
/// the user it is for.
public struct AssetTraffic: Hashable, Sendable {
    /// The container.
    public var container: ContainerIdentifier
    /// The environment.
    public var environment: Environment
    /// The database's scope.
    public var scope: DatabaseScope
    /// The user record name of the caller the URL was made for, if any.
    public var user: String?

    init(place: AssetTickets.Place, user: String?) {
        container = place.container
        environment = place.environment
        scope = place.database.scope
        self.user = user
    }
}

/// An asset's content for a download.
public struct AssetContent: Sendable {
    /// The bytes.
    public var bytes: [UInt8]
    /// The base64 SHA-256 of the content, usable as an entity tag.
    public var fileChecksum: String
    /// The media type sniffed at upload: an image type, PDF, or `application/octet-stream`.
    public var contentType: String
    /// Whether a browser may show it inline (an image); anything else is served as a download.
    public var isInline: Bool { AssetContentType.isImage(contentType) }
}

extension CloudStore {
    // MARK: - Asset blobs

    /// The store ``CloudStoreConfiguration/assetStorage`` chooses.
    static func makeAssetStore(_ configuration: CloudStoreConfiguration) -> any AssetStore {
        switch configuration.assetStorage {
        case .dataDirectory: FileAssetStore(root: configuration.dataDirectory)
        case .directory(let path): FileAssetStore(root: path)
        case .s3(let s3): S3AssetStore(s3)
        }
    }

    /// Checks that the asset store can be used: for an S3 bucket, that it exists and the
    /// credentials open it. Files need no check.
    /// - Throws: ``CloudStoreError/internalError(_:)`` saying what the object store refused, or
    ///   ``CloudStoreError/tryAgainLater(_:)`` when it did not answer.
    public func checkAssetStore() throws {
        try assetStore.checkUsable()
    }

    /// Takes the file posted to an upload URL: stores it once per content (a second upload of
    /// the same bytes shares the first's blob) and hands back the receipt a record save takes.
    /// An upload URL takes one file. Uploads count toward the environment's request rate and
    /// monthly transfer as API requests do (the request log records their bytes).
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an upload URL this server did not make,
    ///   ``CloudStoreError/badRequest(_:)`` for an expired or used one, ``CloudStoreError/quotaExceeded(_:)``
    ///   for a file over ``CloudStoreConfiguration/maximumAssetBytes``, one the environment's
    ///   storage quota has no room for, or a month's transfer used up;
    ///   ``CloudStoreError/throttled(_:retryAfter:)`` past the request rate.
    /// - Parameter actor: the operator storing the file through the console or the management
    ///   API, audited in the upload's transaction; `nil` for an app's upload URL.
    public func uploadAsset(ticket: String, content: [UInt8], by actor: OperatorIdentity? = nil) throws -> UploadedAsset {
        let time = now
        let upload = try AssetTickets.upload(ticket, with: assetSigner, now: time)
        let place = upload.place
        try admitRequest(to: place.container, place.environment)
        guard content.count <= configuration.maximumAssetBytes else {
            throw CloudStoreError.quotaExceeded(
                "The file is \(content.count) bytes; an asset may hold at most \(configuration.maximumAssetBytes) bytes")
        }
        let (sha, stored, compressed) = BlobEncoding.prepare(content)
        let space = EnvironmentKey(container: place.container, environment: place.environment)
        let storage = try environment(place.container, place.environment)
        let limit = try limits(of: place.container, place.environment).storageBytes
        let blob = AssetBlob(
            sha: sha, size: Int64(content.count), stored: Int64(stored.count), compressed: compressed, created: time,
            contentType: AssetContentType.sniff(content))
        // The bytes are written first, outside the transaction; they become the blob with the
        // writer held, so that a collection of the same blob cannot cross it.
        let staged = try assetStore.stage(sha, stored, in: space)
        let (container, environment) = (place.container, place.environment)
        let note = auditNote(
            actor, "record.asset.upload", container, environment,
            target: "\(content.count) bytes for \(upload.recordType).\(upload.fieldName) of \(upload.recordName)")
        do {
            try storage.write { writer in
                if let note { try writer.record(note) }
                // Taken in the transaction that stores the file: of two files posted to one URL,
                // whichever commits second is refused and leaves nothing.
                guard try writer.insertUsedUploadTicket(upload.id, expires: upload.expires) else {
                    throw CloudStoreError.badRequest("This upload URL was used already: it takes one file; ask assets/upload for another")
                }
                let isNew = try writer.insertAssetBlob(blob)
                if isNew, let limit {
                    let held = try writer.storedBytes()
                    guard held <= limit else {
                        throw CloudStoreError.quotaExceeded(
                            "\(container) (\(environment)) may hold \(limit) bytes; this file would bring it to \(held)")
                    }
                }
                try assetStore.commit(staged)
            }
        } catch {
            discard(staged, storage)
            if case CloudStoreError.quotaExceeded = error { counters.refused(at: .storage) }
            throw error
        }
        if note != nil { moveAuditOutbox(of: storage) }
        let receipt = AssetTickets.Receipt(place: place, sha: sha, size: blob.size, expires: time + configuration.assetReceiptLifetime)
        return UploadedAsset(
            fileChecksum: AssetReceiptCheck.checksum(of: sha), size: blob.size, receipt: AssetTickets.seal(receipt, with: assetSigner))
    }

    /// The content a `downloadURL` names, for the caller it was made for, if the session or
    /// token it was made under still holds, that caller may still read the record and the
    /// record still holds that content. Downloads count toward the environment's request rate
    /// and monthly transfer as API requests do (the request log records their bytes).
    /// - Throws: ``CloudStoreError/notFound(_:)`` for a URL this server did not make, one that
    ///   expired or whose session ended, or content the record no longer holds;
    ///   ``CloudStoreError/throttled(_:retryAfter:)`` and ``CloudStoreError/quotaExceeded(_:)``
    ///   past the environment's limits; the record's own refusal otherwise.
    public func assetContent(ticket: String) throws -> AssetContent {
        let download = try AssetTickets.download(ticket, with: assetSigner, now: now)
        let place = download.place
        try checkStillHeld(download.credential, by: download.caller, in: place.container)
        try admitRequest(to: place.container, place.environment)
        // A participant of a share reads another user's private database through their shares.
        let reachedThroughShares =
            place.database.scope == .private && download.caller.signedInUser.map { $0 != place.database.owner } == true
        let database =
            reachedThroughShares
            ? try self.database(place.container, place.environment, .shared, as: download.caller).reaching(owner: place.database.owner)
            : try self.database(place.container, place.environment, database: place.database, as: download.caller)
        let result = try database.lookup([RecordLookup(download.recordName)], zoneName: download.zoneName).first
        guard case .record(let record)? = result else {
            if case .failure(_, let error)? = result, case .accessDenied = error { throw error }
            throw CloudStoreError.notFound("The record of this asset is gone")
        }
        guard record.fields[download.fieldName]?.assets.contains(where: { $0.contentHash == download.sha }) == true,
            let blob = try environment(place.container, place.environment).read({ try $0.assetBlob(download.sha) })
        else { throw CloudStoreError.notFound("The record no longer holds this asset") }
        let stored = try assetStore.read(blob.sha, in: EnvironmentKey(container: place.container, environment: place.environment))
        return AssetContent(
            bytes: try BlobEncoding.content(of: blob, stored: stored), fileChecksum: AssetReceiptCheck.checksum(of: blob.sha),
            contentType: blob.contentType)
    }

    /// Where the traffic of an asset URL's ticket counts, and for whom, expired or not: what
    /// the request log records an upload or download under. `nil` for a ticket this server did
    /// not make.
    public func assetTraffic(ofTicket ticket: String) -> AssetTraffic? {
        if let upload = try? AssetTickets.upload(ticket, with: assetSigner, now: .min) {
            return AssetTraffic(place: upload.place, user: upload.user)
        }
        if let download = try? AssetTickets.download(ticket, with: assetSigner, now: .min) {
            return AssetTraffic(place: download.place, user: download.caller.userRecordName)
        }
        return nil
    }

    /// Removes, in every container's environments, the blobs no record holds whose receipts
    /// have expired, files and all. The server runs it periodically.
    /// - Returns: how many blobs went.
    @discardableResult
    public func collectUnreferencedAssets() throws -> Int {
        var collected = 0
        for container in try containers() {
            for environment in Environment.allCases {
                collected += try collectUnreferencedAssets(
                    container.identifier, environment, createdBefore: now - configuration.assetReceiptLifetime)
            }
        }
        return collected
    }

    /// Removes an environment's blobs no record holds, created before `time`.
    func collectUnreferencedAssets(_ container: ContainerIdentifier, _ environment: Environment, createdBefore time: Int64) throws -> Int {
        let space = EnvironmentKey(container: container, environment: environment)
        return try self.environment(container, environment).write { writer in
            try writer.removeUsedUploadTickets(expiredBefore: now)
            let removed = try writer.removeUnreferencedAssetBlobs(createdBefore: time)
            // A blob that cannot be removed keeps its row, all rows with it: the next round tries again.
            for blob in removed { try assetStore.remove(blob.sha, in: space) }
            return removed.count
        }
    }

    /// Drops what an upload that failed staged, with the writer held so that no commit of the
    /// same blob crosses it; when the writer cannot be had, the blob itself is kept.
    private func discard(_ staged: StagedBlob, _ storage: any EnvironmentStorage) {
        do {
            try storage.write { writer in
                assetStore.discard(staged, blobIsHeld: try writer.assetBlob(staged.sha) != nil)
            }
        } catch {
            assetStore.discard(staged, blobIsHeld: true)
        }
    }
}
