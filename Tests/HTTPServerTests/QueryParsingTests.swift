import TestSupport
import Testing

@testable import HTTPServer

/// Query parameters and log redaction read queries by their bytes; they must agree with the
/// plain reading (split on `&`, then on the first `=`, then percent-decode) on any query.
@Suite struct QueryParsingTests {
    /// The plain reading, as a reference: on bytes, as form encoding is defined (a combining
    /// mark after `&` does not hide it).
    private static func reference(_ query: String) -> [(String, String)] {
        query.utf8.split(separator: UInt8(ascii: "&")).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(Substring(parts[0])), value = parts.count > 1 ? String(Substring(parts[1])) : ""
            return (PercentDecoding.decode(name, plusAsSpace: true) ?? name, PercentDecoding.decode(value, plusAsSpace: true) ?? value)
        }
    }

    @Test(arguments: 0..<3) func parametersAgreeWithThePlainReading(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let pieces = [
            "a", "b", "ckAPIToken", "=", "&", "&&", "%41", "%6", "+", "é", "🇫🇷", "e\u{301}", "x=y", "", "%zz", "%2B", "%61", "%25", "K",
            "\u{212A}",
        ]
        for _ in 0..<2_000 {
            let query = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let request = HTTPRequest(method: .get, target: "/p?" + query)
            let expected = Self.reference(query)
            for name in Set(expected.map(\.0)).union(["a", "ckAPIToken", "missing"]) {
                #expect(request.queryParameter(name) == expected.first { $0.0 == name }?.1, "\(query) \(name)")
                #expect(request.queryParameters(name) == expected.filter { $0.0 == name }.map(\.1), "\(query) \(name)")
                #expect(
                    request.queryParameter(name, orElse: "b") == (expected.first { $0.0 == name } ?? expected.first { $0.0 == "b" })?.1,
                    "\(query) \(name) or b")
            }
            #expect(request.queryItems.map(\.name) == expected.map(\.0))
        }
    }

    /// Percent-decoding byte by byte, as a reference for the decoder's word-at-a-time runs.
    private static func referenceDecode(_ text: String, plusAsSpace: Bool, validatingUTF8: Bool) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusAsSpace && bytes[index] == UInt8(ascii: "+") ? UInt8(ascii: " ") : bytes[index])
                index += 1
            }
        }
        return validatingUTF8 ? String(validating: out, as: UTF8.self) : String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: 0..<2) func decodingAgreesWithAByteByByteDecoder(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        // Long plain runs (whole eight-byte words), escapes and pluses at every offset of a
        // word, cut and invalid escapes, and bytes that are not ASCII.
        let pieces = ["abcdefgh", "a", "0123456789", "+", "%2B", "%2F", "%3D", "%", "%4", "%zz", "%C3%A9", "%E2%82", "é", "🇫🇷", "="]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for plusAsSpace in [false, true] {
                for validatingUTF8 in [false, true] {
                    #expect(
                        PercentDecoding.decode(text, plusAsSpace: plusAsSpace, validatingUTF8: validatingUTF8)
                            == Self.referenceDecode(text, plusAsSpace: plusAsSpace, validatingUTF8: validatingUTF8),
                        "\(text) \(plusAsSpace) \(validatingUTF8)")
                }
            }
        }
    }

    @Test func decodingEscapesPlusesAndInvalidBytes() {
        #expect(PercentDecoding.decode("a%20b+c") == "a b+c")
        #expect(PercentDecoding.decode("a%20b+c", plusAsSpace: true) == "a b c")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("%E2%82") == "\u{FFFD}", "a cut character is replaced")
        #expect(PercentDecoding.decode("%E2%82", validatingUTF8: true) == nil, "or refused when asked")
        #expect(PercentDecoding.decode("%4") == nil)
        #expect(PercentDecoding.decode("%zz") == nil)
        #expect(PercentDecoding.decode("100%") == nil)
        // Longer than any scratch space on the stack.
        let long = String(repeating: "%41b", count: 100_000)
        #expect(PercentDecoding.decode(long) == String(repeating: "Ab", count: 100_000))
    }

    @Test func redactionReplacesOnlyTheNamedValues() {
        let names: Set<String> = ["ckapitoken", "ckwebauthtoken", "tok"]
        #expect(LogRedaction.redact(target: "/a?ckAPIToken=secret&x=1", names: names) == "/a?ckAPIToken=REDACTED&x=1")
        // Names of the same length that differ in one byte, and a mixed-case one.
        #expect(
            LogRedaction.redact(target: "/a?CkApItOkEn=s&ckAPITokem=t&TOK=u&toj=v", names: names)
                == "/a?CkApItOkEn=REDACTED&ckAPITokem=t&TOK=REDACTED&toj=v")
        #expect(
            LogRedaction.redact(target: "/a?x=1&CKWEBAUTHTOKEN=s%2Bt&tok=q&tok", names: names)
                == "/a?x=1&CKWEBAUTHTOKEN=REDACTED&tok=REDACTED&tok")
        #expect(LogRedaction.redact(target: "/a?ck%41PIToken=secret", names: names) == "/a?ck%41PIToken=REDACTED")
        #expect(LogRedaction.redact(target: "/é?tok=🇫🇷&é=1", names: names) == "/é?tok=REDACTED&é=1")
        #expect(LogRedaction.redact(target: "/a?token=keep&x", names: names) == "/a?token=keep&x")
        #expect(LogRedaction.redact(target: "/a", names: names) == "/a")
        #expect(LogRedaction.redact(target: "/a?tok=", names: names) == "/a?tok=REDACTED")
        // Names given in capitals, a name longer than any redacted one, and a non-ASCII name.
        #expect(
            LogRedaction.redact(target: "/a?Secret=s&averyveryverylongname=v&clé=c&cle=d", names: ["SECRET", "clé"])
                == "/a?Secret=REDACTED&averyveryverylongname=v&clé=REDACTED&cle=d")
        let prefixes = ["/assets/1/upload/", "/assets/1/download/"]
        #expect(
            LogRedaction.redact(path: "/assets/1/download/secretTicket/photo.jpg?type=x", prefixes: prefixes)
                == "/assets/1/download/REDACTED/photo.jpg?type=x")
        #expect(LogRedaction.redact(path: "/assets/1/upload/secretTicket", prefixes: prefixes) == "/assets/1/upload/REDACTED")
        #expect(LogRedaction.redact(path: "/assets/1/upload/", prefixes: prefixes) == "/assets/1/upload/")
        #expect(LogRedaction.redact(path: "/database/1/x", prefixes: prefixes) == "/database/1/x")
        // The access log redacts both at once, straight into its line.
        var line = Array("127.0.0.1 \"GET ".utf8)
        LogRedaction.append(
            target: "/assets/1/download/ticket/a.jpg?tok=q&type=image%2Fjpeg&ckAPIToken=k&&x", pathPrefixes: prefixes,
            names: RedactedNames(names), to: &line)
        #expect(
            String(decoding: line, as: UTF8.self)
                == "127.0.0.1 \"GET /assets/1/download/REDACTED/a.jpg?tok=REDACTED&type=image%2Fjpeg&ckAPIToken=REDACTED&&x")
        line = []
        LogRedaction.append(target: "/a?", pathPrefixes: prefixes, names: RedactedNames(names), to: &line)
        #expect(line == Array("/a?".utf8))
    }
}
