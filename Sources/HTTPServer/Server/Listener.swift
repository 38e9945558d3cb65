import CLinux
import Glibc

/// Creates the listening sockets: one per event loop on the same port (SO_REUSEPORT), so the
/// kernel spreads new connections over the loops.
enum Listener {
    /// A socket address for a literal host (`localhost` means 127.0.0.1; no DNS lookups).
    enum Address {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    static func address(host: String, port: Int) throws(HTTPServerError) -> Address {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            return .v4(v4)
        }
        var v6 = sockaddr_in6()
        let bare = literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            return .v6(v6)
        }
        throw HTTPServerError(operation: "resolve", message: "host must be an IP address or localhost, not \(host)")
    }

    /// Opens `count` listening sockets on `host:port`; returns them and the bound port.
    static func open(host: String, port: Int, count: Int, backlog: Int) throws(HTTPServerError) -> (descriptors: [Int32], port: Int) {
        guard (0...65535).contains(port) else { throw HTTPServerError(operation: "bind", message: "port \(port) out of range") }
        if port != 0 {
            // SO_REUSEPORT would let a second server share the port silently: check it is free first.
            let probe = try bind(try address(host: host, port: port), reusePort: false, backlog: nil)
            close(probe)
        }
        var descriptors: [Int32] = []
        var boundPort = port
        do {
            for _ in 0..<max(1, count) {
                let fd = try bind(try address(host: host, port: boundPort), reusePort: true, backlog: backlog)
                descriptors.append(fd)
                if boundPort == 0 { boundPort = localPort(fd) }
            }
        } catch {
            for fd in descriptors { close(fd) }
            throw error
        }
        return (descriptors, boundPort)
    }

    private static func bind(_ address: Address, reusePort: Bool, backlog: Int?) throws(HTTPServerError) -> Int32 {
        let family: Int32
        switch address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError.system("socket", errno) }
        Socket.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if reusePort { Socket.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1) }
        let result: Int32
        switch address {
        case .v4(var raw):
            result = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(var raw):
            result = withUnsafePointer(to: &raw) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError.system("bind", code)
        }
        if let backlog {
            guard listen(fd, Int32(backlog)) == 0 else {
                let code = errno
                close(fd)
                throw HTTPServerError.system("listen", code)
            }
        }
        return fd
    }

    private static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }
}
