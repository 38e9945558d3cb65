extension HTTPRequest {
    /// The client's IP address without the port: `203.0.113.7` of `203.0.113.7:51234`, `::1` of
    /// `[::1]:51234`. What limits per client count by.
    public var remoteHost: String {
        let address = remoteAddress
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }
}
