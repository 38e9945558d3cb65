/// The settings given on the command line of `cumulus serve`; `nil` where a flag was not given.
struct ServeOptions: Sendable {
    var host: String?
    var port: Int?
    var dataDirectory: String?
    var publicDirectory: String?
    var templatesDirectory: String?
    var publicURL: String?
    var logLevel: String?
    var eventLoops: Int?
    var workers: Int?
    var workerQueue: Int?
    var maxHeaderBytes: String?
    var maxBodyBytes: String?
    var headerReadTimeout: String?
    var bodyReadTimeout: String?
    var idleTimeout: String?
    var writeTimeout: String?
    var maxConnections: Int?
    var gzipMinBytes: String?
    var eventStreamHeartbeat: String?
    var shutdownGrace: String?
    var accessLog: Bool?
    var synchronous: String?
    var demo: Bool?
}
