// libFuzzer target for HTTPRequestParser, compiled together with the parser's sources (see
// run.sh). For each input it checks that the parser never crashes, never consumes more than it
// was given, always makes progress, and reports exactly the same requests, body bytes and
// failure whether the input arrives at once or in pieces.

/// What the parser reported, in a comparable form.
private enum Step: Equatable {
    case head(method: String, target: String, version: String, fields: Int, framing: String, keepAlive: Bool)
    case body([UInt8])
    case end
    case failure(HTTPParseError)
}

/// Runs the parser over `data`, fed in pieces of the given sizes (cycled), and records its steps.
private func transcript(_ data: [UInt8], pieces: [Int]) -> [Step] {
    var parser = HTTPRequestParser(maxHeaderBytes: 2048)
    var steps: [Step] = []
    var buffer: [UInt8] = []
    var fed = 0
    var pieceIndex = 0
    var iterations = 0
    var body: [UInt8] = []
    while true {
        if fed < data.count {
            let size = max(1, pieces[pieceIndex % pieces.count])
            pieceIndex += 1
            let end = min(data.count, fed + size)
            buffer += data[fed..<end]
            fed = end
        }
        var waiting = false
        while !waiting {
            iterations += 1
            precondition(iterations < 8 * data.count + 1000, "parser makes no progress")
            let (event, consumed) = buffer.withUnsafeBufferPointer { parser.parse($0) }
            precondition(consumed >= 0 && consumed <= buffer.count, "consumed more than given")
            switch event {
            case .needMore:
                if consumed == 0 { waiting = true }
            case .head(let head):
                if !body.isEmpty { steps.append(.body(body)); body = [] }
                steps.append(
                    .head(
                        method: head.method.rawValue, target: head.target, version: head.version.description,
                        fields: head.headers.count, framing: "\(head.framing)", keepAlive: head.keepAlive
                    ))
            case .body(let range):
                precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count && range.count == consumed, "bad body range")
                body += buffer[range]
            case .end:
                if !body.isEmpty { steps.append(.body(body)); body = [] }
                steps.append(.end)
            case .failure(let error):
                if !body.isEmpty { steps.append(.body(body)) }
                steps.append(.failure(error))
                return steps
            }
            buffer.removeFirst(consumed)
        }
        if fed >= data.count {
            if !body.isEmpty { steps.append(.body(body)) }
            return steps
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let start, count > 0 else { return 0 }
    let data = Array(UnsafeBufferPointer(start: start, count: count))
    let whole = transcript(data, pieces: [data.count])
    let seed = Int(data[0])
    let split = transcript(data, pieces: [1 + seed % 7, 1, 3 + seed % 13, 64])
    let bytewise = transcript(data, pieces: [1])
    precondition(whole == split, "split input parsed differently")
    precondition(whole == bytewise, "byte-by-byte input parsed differently")
    return 0
}
