import CloudKitWire
import TestSupport
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    private func text(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }

    @Test("writes compact JSON in the order built")
    func compact() {
        let value: JSONValue = ["b": 1, "a": [true, false, nil, 1.5, "x"], "c": [:], "d": []]
        #expect(text(value) == #"{"b":1,"a":[true,false,null,1.5,"x"],"c":{},"d":[]}"#)
    }

    @Test("escapes only what JSON requires")
    func escapes() {
        let value: JSONValue = .string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1}\u{1F} é😀\u{7F}\u{2028}")
        #expect(text(value) == "\"\\\"\\\\/\\n\\r\\t\\b\\f\\u0000\\u0001\\u001f é😀\u{7F}\u{2028}\"")
    }

    @Test("escapes inside long runs of plain text")
    func escapesInLongStrings() {
        let plain = String(repeating: "abcdefgh", count: 5)
        let value: JSONValue = .string(plain + "\"" + plain + "\n" + plain)
        #expect(text(value) == "\"" + plain + "\\\"" + plain + "\\n" + plain + "\"")
        #expect(text(.string("abcdefg\"")) == #""abcdefg\"""#)
    }

    @Test("keys are escaped too")
    func escapedKeys() {
        let value: JSONValue = ["a\"b": 1, "line\nbreak": 2]
        #expect(text(value) == #"{"a\"b":1,"line\nbreak":2}"#)
    }

    @Test("integers are exact")
    func integers() {
        #expect(text(.integer(.max)) == "9223372036854775807")
        #expect(text(.integer(.min)) == "-9223372036854775808")
        #expect(text(.integer(0)) == "0")
        #expect(text(.integer(-7)) == "-7")
        #expect(text(.integer(9_007_199_254_740_993)) == "9007199254740993")
    }

    @Test("doubles use the shortest form that reads back the same")
    func doubles() {
        #expect(text(.double(1)) == "1.0")
        #expect(text(.double(0.1)) == "0.1")
        #expect(text(.double(-0.0)) == "-0.0")
        #expect(text(.double(37.33182)) == "37.33182")
        #expect(text(.double(1e-5)) == "1e-05")
        #expect(text(.double(1e16)) == "1e+16")
        #expect(text(.double(.leastNonzeroMagnitude)) == "5e-324")
        #expect(text(.double(.greatestFiniteMagnitude)) == "1.7976931348623157e+308")
        #expect(text(.double(1.0 / 3.0)) == "0.3333333333333333")
    }

    @Test("NaN and infinities become null")
    func nonFinite() {
        #expect(text([.double(.nan), .double(.infinity), .double(-.infinity)]) == "[null,null,null]")
    }

    @Test("doubles read back bit for bit")
    func doubleRoundTrip() throws {
        var generator = SeededGenerator(seed: 53)
        for _ in 0..<5_000 {
            let double = Double(bitPattern: generator.next())
            guard double.isFinite else { continue }
            let parsed = try JSONValue.parse(JSONValue.double(double).serialized())
            guard case .double(let back) = parsed else {
                Issue.record("\(double) read back as \(parsed)")
                continue
            }
            #expect(back.bitPattern == double.bitPattern)
        }
    }

    @Test("serialize(into:) appends")
    func appending() {
        var output = Array("prefix:".utf8)
        JSONValue.array([1, "a"]).serialize(into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:[1,"a"]"#)
    }

    @Test("description is the JSON text")
    func description() {
        let value: JSONValue = ["a": [1, 2]]
        #expect(value.description == #"{"a":[1,2]}"#)
        #expect("\(JSONValue.null)" == "null")
    }
}
