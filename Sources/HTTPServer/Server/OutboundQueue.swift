/// Response bytes and file regions waiting for a connection's socket to accept them.
struct OutboundQueue {
    enum Item {
        case bytes([UInt8], offset: Int)
        case file(FileRegion)
    }

    private(set) var items: [Item] = []
    /// Bytes still to send, files included.
    private(set) var byteCount = 0

    var isEmpty: Bool { items.isEmpty }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        items.append(.bytes(bytes, offset: 0))
        byteCount += bytes.count
    }

    /// Sends `bytes` at once when nothing is queued (the common case: no queue entry is made),
    /// queueing whatever the socket does not take.
    mutating func send(_ bytes: [UInt8], to descriptor: Int32) -> Int {
        guard items.isEmpty, !bytes.isEmpty else {
            append(bytes)
            return 0
        }
        let result = bytes.withUnsafeBytes { Socket.send(descriptor, $0.baseAddress!, $0.count) }
        switch result {
        case .sent(let count):
            if count < bytes.count {
                items.append(.bytes(bytes, offset: count))
                byteCount += bytes.count - count
            }
            return count
        case .wouldBlock, .failed:
            // A failure shows up again on the next write, which closes the connection.
            append(bytes)
            return 0
        }
    }

    mutating func append(_ region: FileRegion) {
        guard region.length > 0 else { return }
        items.append(.file(region))
        byteCount += Int(region.length)
    }

    mutating func removeAll() {
        items.removeAll()
        byteCount = 0
    }

    enum WriteResult {
        /// Everything was sent.
        case done
        /// The socket is full; wait for EPOLLOUT.
        case wouldBlock
        /// The connection failed.
        case failed
    }

    /// Writes as much as the socket takes.
    /// - Returns: The outcome and how many bytes were sent.
    mutating func write(to descriptor: Int32) -> (WriteResult, Int) {
        var sent = 0
        while let first = items.first {
            switch first {
            case .bytes(let bytes, let offset):
                let result = bytes.withUnsafeBytes { raw in
                    Socket.send(descriptor, raw.baseAddress! + offset, raw.count - offset)
                }
                switch result {
                case .sent(let count):
                    sent += count
                    byteCount -= count
                    if offset + count == bytes.count {
                        items.removeFirst()
                    } else {
                        items[0] = .bytes(bytes, offset: offset + count)
                    }
                case .wouldBlock: return (.wouldBlock, sent)
                case .failed: return (.failed, sent)
                }
            case .file(var region):
                let result = Socket.sendFile(descriptor, region)
                switch result {
                case .sent(let count):
                    sent += count
                    byteCount -= count
                    region.offset += Int64(count)
                    region.length -= Int64(count)
                    if region.length == 0 { items.removeFirst() } else { items[0] = .file(region) }
                case .wouldBlock: return (.wouldBlock, sent)
                case .failed: return (.failed, sent)
                }
            }
        }
        return (.done, sent)
    }
}
