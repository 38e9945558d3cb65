import CloudKitWire
import Testing

@Suite("JSON values and objects")
struct JSONValueTests {
    @Test("literals build the matching cases")
    func literals() {
        let value: JSONValue = ["s": "x", "i": 1, "d": 2.5, "b": true, "n": nil, "a": [1, "two"], "o": ["k": false]]
        #expect(value["s"] == .string("x"))
        #expect(value["i"] == .integer(1))
        #expect(value["d"] == .double(2.5))
        #expect(value["b"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.integer(1), .string("two")]))
        #expect(value["o"] == .object(JSONObject([("k", .bool(false))])))
        #expect(value.objectValue?.keys == ["s", "i", "d", "b", "n", "a", "o"])
    }

    @Test("int64Value takes integers and exact-integer doubles only")
    func int64Value() {
        #expect(JSONValue.integer(5).int64Value == 5)
        #expect(JSONValue.double(3).int64Value == 3)
        #expect(JSONValue.double(1e3).int64Value == 1000)
        #expect(JSONValue.double(-9_223_372_036_854_775_808).int64Value == .min)
        #expect(JSONValue.double(3.5).int64Value == nil)
        #expect(JSONValue.double(9_223_372_036_854_775_808).int64Value == nil)
        #expect(JSONValue.double(.nan).int64Value == nil)
        #expect(JSONValue.string("5").int64Value == nil)
        #expect(JSONValue.bool(true).int64Value == nil)
        #expect(JSONValue.null.int64Value == nil)
    }

    @Test(
        "numeric strings count only when asked",
        arguments: [
            ("5", Int64?.some(5)),
            ("-9223372036854775808", .some(.min)),
            ("9223372036854775807", .some(.max)),
            ("1422312944104", .some(1_422_312_944_104)),
            ("1e3", .some(1000)),
            ("2.0", .some(2)),
            ("1.5", nil),
            ("9223372036854775808", nil),
            (" 5", nil),
            ("5 ", nil),
            ("+5", nil),
            ("05", nil),
            ("0x10", nil),
            ("", nil),
            ("-", nil),
            ("NaN", nil),
            ("five", nil),
        ])
    func numericStrings(text: String, expected: Int64?) {
        #expect(JSONValue.string(text).int64Value(acceptingNumericString: true) == expected)
        #expect(JSONValue.string(text).int64Value(acceptingNumericString: false) == nil)
    }

    @Test("doubleValue takes doubles, integers and, when asked, numeric strings")
    func doubleValue() {
        #expect(JSONValue.double(2.5).doubleValue == 2.5)
        #expect(JSONValue.integer(2).doubleValue == 2)
        #expect(JSONValue.string("2.5").doubleValue == nil)
        #expect(JSONValue.string("2.5").doubleValue(acceptingNumericString: true) == 2.5)
        #expect(JSONValue.string("-1e-3").doubleValue(acceptingNumericString: true) == -0.001)
        #expect(JSONValue.string("7").doubleValue(acceptingNumericString: true) == 7)
        #expect(JSONValue.string("1e400").doubleValue(acceptingNumericString: true) == nil)
        #expect(JSONValue.string("Infinity").doubleValue(acceptingNumericString: true) == nil)
        #expect(JSONValue.integer(3).doubleValue(acceptingNumericString: true) == 3)
        #expect(JSONValue.bool(false).doubleValue == nil)
    }

    @Test("other accessors answer only for their own case")
    func accessors() {
        #expect(JSONValue.string("a").stringValue == "a")
        #expect(JSONValue.integer(1).stringValue == nil)
        #expect(JSONValue.bool(false).boolValue == false)
        #expect(JSONValue.integer(0).boolValue == nil)
        #expect(JSONValue.array([1]).arrayValue == [1])
        #expect(JSONValue.object([:]).arrayValue == nil)
        #expect(JSONValue.object(["a": 1]).objectValue == ["a": 1])
        #expect(JSONValue.array([]).objectValue == nil)
        #expect(JSONValue.null.isNull)
        #expect(!JSONValue.integer(0).isNull)
    }

    @Test("subscripts reach into objects and arrays")
    func subscripts() {
        let value: JSONValue = ["zoneID": ["zoneName": "Notes"], "list": [10, 20]]
        #expect(value["zoneID"]?["zoneName"]?.stringValue == "Notes")
        #expect(value["missing"] == nil)
        #expect(value["list"]?[1] == 20)
        #expect(value["list"]?[2] == nil)
        #expect(value["list"]?[-1] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.string("x")["key"] == nil)
    }

    @Test("integer and double with the same value are different values")
    func integerIsNotDouble() {
        #expect(JSONValue.integer(1) != JSONValue.double(1))
        #expect(Set<JSONValue>([.integer(1), .double(1), .string("1")]).count == 3)
    }

    @Test("objects compare in order")
    func objectEquality() {
        let ab: JSONObject = ["a": 1, "b": 2]
        let ba: JSONObject = ["b": 2, "a": 1]
        #expect(ab != ba)
        #expect(ab == JSONObject([("a", 1), ("b", 2)]))
        #expect(Set([ab, ab, ba]).count == 2)
    }

    @Test("setting a key replaces in place or appends; nil removes")
    func objectMutation() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = "one"
        object["c"] = 3
        #expect(object.keys == ["a", "b", "c"])
        #expect(object.values == ["one", 2, 3])
        object["b"] = nil
        #expect(object.keys == ["a", "c"])
        #expect(object.removeValue(forKey: "a") == "one")
        #expect(object.removeValue(forKey: "a") == nil)
        #expect(object.keys == ["c"])
        #expect(object.position(ofKey: "c") == 0)
    }

    @Test("lookups stay right across the hash index threshold")
    func largeObjects() {
        var object = JSONObject()
        let count = JSONObject.linearSearchLimit * 3
        for number in 0..<count {
            object["key\(number)"] = .integer(Int64(number))
        }
        #expect(object.count == count)
        for number in 0..<count {
            #expect(object["key\(number)"] == .integer(Int64(number)))
            #expect(object.position(ofKey: "key\(number)") == number)
        }
        #expect(object["key\(count)"] == nil)
        // Remove down below the threshold; positions must follow.
        for number in stride(from: count - 1, through: 3, by: -1) where number % 2 == 1 || number > 10 {
            object["key\(number)"] = nil
        }
        #expect(object.keys == ["key0", "key1", "key2", "key4", "key6", "key8", "key10"])
        #expect(object.position(ofKey: "key10") == 6)
        #expect(object["key9"] == nil)
        object["key9"] = 9
        #expect(object.position(ofKey: "key9") == 7)
    }

    @Test("a repeated literal key keeps its first position and last value")
    func literalDuplicates() {
        let object: JSONObject = ["a": 1, "b": 2, "a": 3]
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
    }

    @Test("objects iterate as key–value pairs in order")
    func iteration() {
        let object: JSONObject = ["x": 1, "y": 2]
        #expect(object.map(\.key) == ["x", "y"])
        #expect(object.map(\.value) == [1, 2])
        #expect(object[1].key == "y")
        #expect(object.isEmpty == false)
        #expect(JSONObject().isEmpty)
    }
}
