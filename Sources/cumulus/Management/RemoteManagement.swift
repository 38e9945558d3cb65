import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests to a remote server's management API over HTTP or HTTPS.
enum RemoteManagement {
    /// How long a request may take before the command gives up.
    static let timeout: TimeInterval = 120

    /// The server's root (`https://cloud.example.com`, without a trailing slash) and the URL of
    /// `target` on it.
    private static func address(_ base: URL, _ target: String) throws -> (root: String, url: URL) {
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        guard let url = URL(string: root + target) else { throw ManagementFailure(description: "Cannot make a URL of \(root + target)") }
        return (root, url)
    }

    /// Sends one request and waits for its answer.
    /// - Throws: ``ManagementFailure`` when the server cannot be reached.
    static func send(_ method: String, base: URL, target: String, token: String, body: [UInt8], contentType: String?)
        throws -> ManagementClient.Answer
    {
        let (root, url) = try address(base, target)
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if !body.isEmpty || method != "GET" { request.httpBody = Data(body) }

        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            outcome.set(data: data, response: response as? HTTPURLResponse, error: error)
            done.signal()
        }
        task.resume()
        done.wait()
        let (data, response, error) = outcome.get()
        guard let response else {
            throw ManagementFailure(description: "Cannot reach \(root): \(error?.localizedDescription ?? "no response")")
        }
        return ManagementClient.Answer(status: response.statusCode, body: Array(data ?? Data()))
    }

    /// The answer, handed from URLSession's queue to the waiting command.
    private final class Outcome: @unchecked Sendable {
        // Safe without @unchecked's usual worry: `set` runs once on URLSession's queue before
        // `done.signal()`, and `get` runs only after `done.wait()`, so the lock is belt and braces.
        private let lock = NSLock()
        private var data: Data?
        private var response: HTTPURLResponse?
        private var error: (any Error)?

        func set(data: Data?, response: HTTPURLResponse?, error: (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            (self.data, self.response, self.error) = (data, response, error)
        }

        func get() -> (Data?, HTTPURLResponse?, (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            return (data, response, error)
        }
    }
}

extension RemoteManagement {
    /// Follows a server-sent event stream, handing the data of each event called `event` to
    /// `handle` as it arrives, until the server ends the stream or `count` events were handled.
    /// - Throws: ``ManagementFailure`` when the server cannot be reached or refuses the request.
    static func follow(base: URL, target: String, token: String, event: String, count: Int?, handle: @escaping (String) -> Void) throws {
        let url = try address(base, target).url
        var request = URLRequest(url: url, timeoutInterval: .infinity)
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let reader = EventStreamReader(event: event, count: count, handle: handle)
        let session = URLSession(configuration: .default, delegate: reader, delegateQueue: nil)
        let task = session.dataTask(with: request)
        task.resume()
        reader.done.wait()
        task.cancel()
        session.invalidateAndCancel()
        if let failure = reader.failure { throw failure }
    }

    /// Reads a server-sent event stream as it arrives. URLSession calls the delegate on its own
    /// serial queue, one call at a time, and the command reads `failure` only after `done` is
    /// signalled: so the state needs no lock.
    private final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let event: String
        let count: Int?
        let handle: (String) -> Void
        let done = DispatchSemaphore(value: 0)
        var failure: ManagementFailure?
        private var pending: [UInt8] = []
        private var body: [UInt8] = []
        private var status = 0
        private var handled = 0
        private var finished = false

        init(event: String, count: Int?, handle: @escaping (String) -> Void) {
            self.event = event
            self.count = count
            self.handle = handle
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard !finished else { return }
            guard (200..<300).contains(status) else {
                body += data
                return
            }
            pending += data
            // Events end with a blank line; each line of one is `field: value`.
            while let end = blankLine(in: pending) {
                let text = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(..<(end + 2))
                var name = "message"
                var lines: [String] = []
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                    if line.hasPrefix("data:") { lines.append(String(line.dropFirst(5).drop { $0 == " " })) }
                }
                guard name == event, !lines.isEmpty else { continue }
                handle(lines.joined(separator: "\n"))
                handled += 1
                if let count, handled >= count { return finish() }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard !finished else { return }
            if !(200..<300).contains(status) {
                failure =
                    status == 0
                    ? ManagementFailure(description: "Cannot reach the server: \(error?.localizedDescription ?? "no response")")
                    : ManagementFailure(ManagementClient.Answer(status: status, body: body))
            }
            finish()
        }

        private func finish() {
            finished = true
            done.signal()
        }

        /// Where the first blank line (`\n\n`) of `bytes` starts.
        private func blankLine(in bytes: [UInt8]) -> Int? {
            guard bytes.count >= 2 else { return nil }
            for index in 0..<(bytes.count - 1) where bytes[index] == 10 && bytes[index + 1] == 10 { return index }
            return nil
        }
    }
}
