import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What Linux's `/proc` says of this process, as Prometheus' standard `process_*` metrics
/// name it. A fact that cannot be read is `nil` and left out.
struct ProcessFacts {
    /// Resident memory, in bytes.
    var residentBytes: Double?
    /// User and system CPU time, in seconds.
    var cpuSeconds: Double?
    /// When the process started, in seconds since 1970.
    var startTime: Double?
    /// Open file descriptors.
    var openDescriptors: Double?
    /// The most file descriptors the process may open.
    var maximumDescriptors: Double?

    /// Reads the facts now.
    static func current() -> ProcessFacts {
        var facts = ProcessFacts()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        // The fields after the command's closing parenthesis (which may hold spaces), from the
        // third (state): utime is the 14th, stime the 15th, starttime the 22nd, rss the 24th.
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            func field(_ number: Int) -> Double? { fields.count > number - 3 ? Double(fields[number - 3]) : nil }
            if let user = field(14), let system = field(15), ticks > 0 { facts.cpuSeconds = (user + system) / ticks }
            if let pages = field(24) { facts.residentBytes = pages * Double(sysconf(Int32(_SC_PAGESIZE))) }
            if let started = field(22), let boot = bootTime(), ticks > 0 { facts.startTime = boot + started / ticks }
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing's own descriptor is among them while it is read.
            facts.openDescriptors = Double(max(0, descriptors.count - 1))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { facts.maximumDescriptors = Double(limit.rlim_cur) }
        return facts
    }

    /// When the machine booted, in seconds since 1970: `/proc/stat`'s `btime`.
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
