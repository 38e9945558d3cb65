import CLinux
import Glibc

/// Waiting for SIGTERM or SIGINT without a thread blocked in a signal handler.
public enum TerminationSignal {
    /// Blocks the calling thread until SIGTERM or SIGINT is delivered. After the first signal,
    /// a second one ends the process at once (status 128 + signal).
    public static func wait() {
        let fd = eventfd(0, Int32(EFD_CLOEXEC))
        guard fd >= 0 else { return }
        _ = CLinux_notify_signal(SIGTERM, fd)
        _ = CLinux_notify_signal(SIGINT, fd)
        var value: eventfd_t = 0
        while eventfd_read(fd, &value) != 0 && errno == EINTR {}
    }
}
