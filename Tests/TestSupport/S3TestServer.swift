import CloudStore
import Foundation
import Glibc
import Synchronization

/// An S3-compatible server on 127.0.0.1 for tests: `moto_server` (in memory, quick to start;
/// accepts any credentials) or SeaweedFS's `weed mini` (real storage in a temporary directory;
/// checks signatures against the one identity it is given). Both come from PyPI
/// (`Tests/python/requirements.txt`). The server stops when the value is released, or at the
/// latest a moment after the test process ends.
public final class S3TestServer: Sendable {
    /// Which server runs.
    public enum Kind: String, Sendable {
        case moto, seaweedFS
    }

    /// The server.
    public let kind: Kind
    /// Its S3 port on 127.0.0.1.
    public let port: Int
    /// The access key ID it accepts.
    public let accessKeyID = "CUMULUSTESTKEY"
    /// The secret access key it accepts.
    public let secretAccessKey = "cumulus-test-secret-\(UUID().uuidString.prefix(8))"
    private let process: Mutex<Process?>
    private let directory: TemporaryDirectory

    /// The moto server shared by the tests of this process, started on first use.
    public static func moto() throws -> S3TestServer { try sharedMoto.get() }

    private static let sharedMoto = Result { () throws -> S3TestServer in
        let server = try S3TestServer(.moto)
        sharedMotoWatcher.store(server.watcherID, ordering: .relaxed)
        atexit { S3TestServer.stopSharedMoto() }
        return server
    }
    private static let sharedMotoWatcher = Atomic<Int32>(0)
    private static func stopSharedMoto() {
        let watcher = sharedMotoWatcher.load(ordering: .relaxed)
        if watcher > 0 { kill(watcher, SIGTERM) }
    }

    /// Starts a server of its own, waiting until it answers.
    public init(_ kind: Kind) throws {
        self.kind = kind
        directory = try TemporaryDirectory(prefix: "cumulus-s3")
        let ports = try Self.freePorts(kind == .moto ? 1 : 10)
        port = ports[0]
        let command: String
        switch kind {
        case .moto:
            command = "moto_server -H 127.0.0.1 -p \(port)"
        case .seaweedFS:
            let identities =
                #"{"identities":[{"name":"cumulus","credentials":[{"accessKey":"\#(accessKeyID)","secretKey":"\#(secretAccessKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}"#
            try directory.file("s3.json", identities)
            try FileManager.default.createDirectory(atPath: directory.path + "/data", withIntermediateDirectories: true)
            // Every listener named, on 127.0.0.1 only: the defaults bind 0.0.0.0 on fixed ports.
            command =
                "weed mini -dir=\(directory.path)/data -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3.port=\(ports[0])"
                + " -s3.port.grpc=\(ports[1]) -master.port=\(ports[2]) -master.port.grpc=\(ports[3]) -volume.port=\(ports[4])"
                + " -volume.port.grpc=\(ports[5]) -filer.port=\(ports[6]) -filer.port.grpc=\(ports[7]) -admin.port=\(ports[8])"
                + " -admin.port.grpc=\(ports[9]) -admin.ui=false -webdav=false -s3.port.iceberg=0 -s3.port.lance=0"
                + " -s3.config=\(directory.path)/s3.json"
        }
        // A shell watches this process and stops the server when it ends, however it ends.
        let script = """
            \(command) > '\(directory.path)/server.log' 2>&1 &
            server=$!
            trap 'kill -9 $server 2>/dev/null; wait $server; rm -rf '\''\(directory.path)'\''; exit 0' TERM
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.2; done
            kill -9 $server 2>/dev/null
            wait $server
            rm -rf '\(directory.path)'
            """
        let launched = Process()
        launched.executableURL = URL(fileURLWithPath: "/bin/sh")
        launched.arguments = ["-c", script]
        launched.standardOutput = FileHandle.nullDevice
        launched.standardError = FileHandle.nullDevice
        try launched.run()
        process = Mutex(launched)
        try waitUntilAnswering()
    }

    deinit { stop() }

    /// The process id of the shell watching the server.
    private var watcherID: Int32 { process.withLock { $0?.processIdentifier ?? 0 } }

    /// Stops the server.
    public func stop() {
        process.withLock { process in
            guard let running = process else { return }
            if running.isRunning { kill(running.processIdentifier, SIGTERM) }
            running.waitUntilExit()
            process = nil
        }
    }

    /// What the server wrote, for a failing test's message.
    public var log: String { (try? String(contentsOfFile: directory.path + "/server.log", encoding: .utf8)) ?? "" }

    /// The configuration of a bucket on this server, with this server's credentials.
    public func configuration(bucket: String) throws -> S3AssetConfiguration {
        try S3AssetConfiguration(
            endpoint: "http://127.0.0.1:\(port)", bucket: bucket, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
    }

    /// Creates a bucket of a fresh name and returns its configuration.
    public func makeBucket() throws -> S3AssetConfiguration {
        let configuration = try configuration(bucket: "cumulus-\(UUID().uuidString.lowercased().prefix(18))")
        // SeaweedFS answers on its S3 port a moment before its filer takes buckets.
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                try configuration.createBucket()
                return configuration
            } catch  where ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    private func waitUntilAnswering() throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? HTTPTestClient.send(port: port, method: "GET", target: "/", timeout: 2)) != nil { return }
            guard process.withLock({ $0?.isRunning == true }) else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let output = log
        stop()
        throw TestFailure("\(kind) did not answer on 127.0.0.1:\(port):\n\(output)")
    }

    /// Ports free on 127.0.0.1 at this moment, each held until all are found so none repeats.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        return try (0..<count).map { _ in
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
            sockets.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw TestFailure("bind: errno \(errno)") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
