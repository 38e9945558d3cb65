import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests to a remote server's management API over HTTP or HTTPS.
enum RemoteManagement {
    /// How long a request may take before the command gives up.
    static let timeout: TimeInterval = 120

    /// Sends one request and waits for its answer.
    /// - Throws: ``ManagementFailure`` when the server cannot be reached.
    static func send(_ method: String, base: URL, target: String, token: String, body: [UInt8], contentType: String?)
        throws -> ManagementClient.Answer
    {
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        guard let url = URL(string: root + target) else { throw ManagementFailure(description: "Cannot make a URL of \(root + target)") }
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
