/// Makes request ids: a random per-loop prefix and a counter, cheap enough for every request.
struct RequestIDGenerator {
    private let prefix: String
    private var counter: UInt64 = 0

    init(loopIndex: Int) {
        let random = UInt32.random(in: 0...UInt32.max)
        prefix = String(random, radix: 16) + String(loopIndex, radix: 16) + "-"
    }

    /// The client's id if it is 1–128 characters of `[A-Za-z0-9._:-]`, else a new one.
    mutating func id(reusing offered: String?) -> String {
        if let offered, RequestIDGenerator.isAcceptable(offered) { return offered }
        counter &+= 1
        // The prefix and the counter in hex, written into the new string's storage at once.
        var prefix = prefix
        let counter = counter
        return prefix.withUTF8 { prefix in
            let digits = max(1, (64 - counter.leadingZeroBitCount + 3) / 4)
            return String(unsafeUninitializedCapacity: prefix.count + digits) { buffer in
                _ = buffer.initialize(fromContentsOf: prefix)
                var rest = counter
                for index in stride(from: prefix.count + digits - 1, through: prefix.count, by: -1) {
                    let digit = UInt8(truncatingIfNeeded: rest & 0xF)
                    buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
                    rest >>= 4
                }
                return prefix.count + digits
            }
        }
    }

    static func isAcceptable(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
