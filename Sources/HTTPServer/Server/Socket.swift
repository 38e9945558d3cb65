import CLinux
import Glibc

/// Thin wrappers over the socket calls the server makes.
enum Socket {
    enum IOResult {
        case sent(Int)
        case wouldBlock
        case failed
    }

    /// send(2) without SIGPIPE; retries on EINTR.
    static func send(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> IOResult {
        while true {
            let result = Glibc.send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
            if result >= 0 { return .sent(result) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// sendfile(2) of as much of `region` as the socket takes.
    static func sendFile(_ descriptor: Int32, _ region: FileRegion) -> IOResult {
        var offset = region.offset
        while true {
            let count = UInt(min(region.length, 1 << 30))
            let result = CLinux_sendfile(descriptor, region.file.descriptor, &offset, count)
            if result > 0 { return .sent(result) }
            // The file shrank under us: nothing more can be sent for this response.
            if result == 0 { return .failed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// Sets an integer socket option.
    @discardableResult
    static func setOption(_ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var value = value
        return setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    private static func cString(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The peer address of a connected socket as `host:port`.
    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                    return cString(buffer) + ":" + String(UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                    return "[" + cString(buffer) + "]:" + String(UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
        default:
            return "-"
        }
    }
}
