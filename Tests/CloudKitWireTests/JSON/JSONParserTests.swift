import CloudKitWire
import Testing

/// One case of the valid corpus: the text and the value it must parse to.
struct AcceptedJSON: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var expected: JSONValue
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ expected: JSONValue) {
        self.init(name, Array(text.utf8), expected)
    }

    init(_ name: String, _ bytes: [UInt8], _ expected: JSONValue) {
        self.name = name
        self.bytes = bytes
        self.expected = expected
    }
}

/// One case of the invalid corpus: the text and the byte offset its error must report.
struct RefusedJSON: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var offset: Int
    var testDescription: String { name }

    init(_ name: String, _ text: String, at offset: Int) {
        self.init(name, Array(text.utf8), at: offset)
    }

    init(_ name: String, _ bytes: [UInt8], at offset: Int) {
        self.name = name
        self.bytes = bytes
        self.offset = offset
    }
}

/// The valid corpus, named after JSONTestSuite's `y_` files.
let acceptedCorpus: [AcceptedJSON] = [
    AcceptedJSON("y_array_empty", "[]", []),
    AcceptedJSON("y_array_nested", "[[[]]]", [[[]]]),
    AcceptedJSON("y_array_mixed", #"[1,"a",true,false,null,{},[]]"#, [1, "a", true, false, nil, [:], []]),
    AcceptedJSON("y_object_empty", "{}", [:]),
    AcceptedJSON("y_object_simple", #"{"a":1}"#, ["a": 1]),
    AcceptedJSON("y_object_nested", #"{"a":{"b":{"c":[]}}}"#, ["a": ["b": ["c": []]]]),
    AcceptedJSON("y_object_empty_key", #"{"":0}"#, ["": 0]),
    AcceptedJSON("y_whitespace_everywhere", " \t\n\r[ 1 ,\n2 ]\r\n ", [1, 2]),
    AcceptedJSON("y_whitespace_object", " { \"a\" : 1 , \"b\" : [ ] } ", ["a": 1, "b": []]),
    AcceptedJSON("y_top_level_string", #""x""#, "x"),
    AcceptedJSON("y_top_level_integer", "42", 42),
    AcceptedJSON("y_top_level_null", "null", nil),
    AcceptedJSON("y_top_level_true", "true", true),
    AcceptedJSON("y_top_level_false", " false ", false),
    AcceptedJSON("y_number_zero", "0", .integer(0)),
    AcceptedJSON("y_number_minus_zero", "-0", .integer(0)),
    AcceptedJSON("y_number_zero_point_zero", "0.0", .double(0)),
    AcceptedJSON("y_number_negative_integer", "-123", .integer(-123)),
    AcceptedJSON("y_number_one_point_zero_is_double", "1.0", .double(1)),
    AcceptedJSON("y_number_exponent_is_double", "1e3", .double(1000)),
    AcceptedJSON("y_number_capital_exponent_plus", "1E+3", .double(1000)),
    AcceptedJSON("y_number_negative_exponent", "1e-3", .double(0.001)),
    AcceptedJSON("y_number_fraction_exponent", "-1.5E-2", .double(-0.015)),
    AcceptedJSON("y_number_zero_exponent", "0e10", .double(0)),
    AcceptedJSON("y_number_latitude", "37.33182", .double(37.33182)),
    AcceptedJSON("y_number_int64_max", "9223372036854775807", .integer(.max)),
    AcceptedJSON("y_number_int64_min", "-9223372036854775808", .integer(.min)),
    AcceptedJSON("y_number_2_pow_53_plus_1_exact", "9007199254740993", .integer(9_007_199_254_740_993)),
    AcceptedJSON("y_number_beyond_int64_is_double", "9223372036854775808", .double(9_223_372_036_854_775_808)),
    AcceptedJSON("y_number_below_int64_is_double", "-9223372036854775809", .double(-9_223_372_036_854_775_808)),
    AcceptedJSON("y_number_long_mantissa", "3.141592653589793238462643383279", .double(3.141592653589793)),
    AcceptedJSON("y_number_smallest_subnormal", "5e-324", .double(.leastNonzeroMagnitude)),
    AcceptedJSON("y_number_underflow_to_zero", "1e-400", .double(0)),
    AcceptedJSON("y_number_largest", "1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
    AcceptedJSON("y_number_timestamp", "1422312944104", .integer(1_422_312_944_104)),
    AcceptedJSON("y_string_empty", #""""#, ""),
    AcceptedJSON("y_string_escapes", #""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
    AcceptedJSON("y_string_unicode_escape", #""caf\u00e9""#, "café"),
    AcceptedJSON("y_string_unicode_escape_uppercase", #""\u00C9""#, "É"),
    AcceptedJSON("y_string_escaped_nul", #""a\u0000b""#, "a\u{0}b"),
    AcceptedJSON("y_string_surrogate_pair", #""\uD83D\uDE00""#, "😀"),
    AcceptedJSON("y_string_raw_utf8", "\"😀 é ü 中\"", "😀 é ü 中"),
    AcceptedJSON("y_string_raw_utf8_with_escape", "\"é\\n中\"", "é\n中"),
    AcceptedJSON("y_string_line_separator_raw", "\"\u{2028}\u{2029}\"", "\u{2028}\u{2029}"),
    AcceptedJSON("y_string_delete_raw", "\"\u{7F}\"", "\u{7F}"),
    AcceptedJSON(
        "y_string_long_ascii", "\"" + String(repeating: "abcdefgh", count: 40) + "\"",
        .string(String(repeating: "abcdefgh", count: 40))),
    AcceptedJSON("y_string_escape_after_long_run", #""abcdefghijklmnop\"q""#, "abcdefghijklmnop\"q"),
    AcceptedJSON("y_object_duplicate_key_last_wins", #"{"a":1,"b":2,"a":3}"#, ["a": 3, "b": 2]),
    AcceptedJSON(
        "y_cloudkit_zone", #"{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_9a065b60313a5937e75e03ed8e8f383d"}}"#,
        ["zoneID": ["zoneName": "_defaultZone", "ownerRecordName": "_9a065b60313a5937e75e03ed8e8f383d"]]),
]

/// The invalid corpus, named after JSONTestSuite's `n_` files, with the offset each error names.
let refusedCorpus: [RefusedJSON] = [
    RefusedJSON("n_empty", "", at: 0),
    RefusedJSON("n_whitespace_only", " \n ", at: 3),
    RefusedJSON("n_array_trailing_comma", "[1,]", at: 3),
    RefusedJSON("n_object_trailing_comma", #"{"a":1,}"#, at: 7),
    RefusedJSON("n_array_leading_comma", "[,1]", at: 1),
    RefusedJSON("n_array_double_comma", "[1,,2]", at: 3),
    RefusedJSON("n_array_missing_comma", "[1 2]", at: 3),
    RefusedJSON("n_array_unclosed", "[1", at: 2),
    RefusedJSON("n_array_unclosed_after_comma", "[1,", at: 3),
    RefusedJSON("n_array_closed_by_brace", "[1}", at: 2),
    RefusedJSON("n_object_unclosed", #"{"a":1"#, at: 6),
    RefusedJSON("n_object_unquoted_key", "{a:1}", at: 1),
    RefusedJSON("n_object_single_quoted_key", "{'a':1}", at: 1),
    RefusedJSON("n_object_number_key", "{1:1}", at: 1),
    RefusedJSON("n_object_missing_colon", #"{"a" 1}"#, at: 5),
    RefusedJSON("n_object_comma_instead_of_colon", #"{"a",1}"#, at: 4),
    RefusedJSON("n_object_missing_value", #"{"a":}"#, at: 5),
    RefusedJSON("n_object_closed_by_bracket", #"{"a":1]"#, at: 6),
    RefusedJSON("n_object_key_truncated", #"{"a"#, at: 1),
    RefusedJSON("n_comment_line", "[1]//x", at: 3),
    RefusedJSON("n_comment_block", "/*x*/[1]", at: 0),
    RefusedJSON("n_comment_inside", "[1/*x*/]", at: 2),
    RefusedJSON("n_nan", "NaN", at: 0),
    RefusedJSON("n_infinity", "Infinity", at: 0),
    RefusedJSON("n_minus_infinity", "-Infinity", at: 1),
    RefusedJSON("n_number_leading_zero", "01", at: 0),
    RefusedJSON("n_number_negative_leading_zero", "-01", at: 1),
    RefusedJSON("n_number_plus", "+1", at: 0),
    RefusedJSON("n_number_starts_with_dot", ".5", at: 0),
    RefusedJSON("n_number_ends_with_dot", "1.", at: 2),
    RefusedJSON("n_number_dot_exponent", "1.e3", at: 2),
    RefusedJSON("n_number_empty_exponent", "1e", at: 2),
    RefusedJSON("n_number_empty_signed_exponent", "1e+", at: 3),
    RefusedJSON("n_number_minus_alone", "-", at: 1),
    RefusedJSON("n_number_minus_space", "- 1", at: 1),
    RefusedJSON("n_number_hex", "0x1", at: 1),
    RefusedJSON("n_number_too_large", "1e400", at: 0),
    RefusedJSON("n_number_too_large_negative", "[-1e999]", at: 1),
    RefusedJSON("n_string_unterminated", #""abc"#, at: 0),
    RefusedJSON("n_string_unterminated_after_escape", #""ab\"#, at: 0),
    RefusedJSON("n_string_raw_newline", "\"a\nb\"", at: 2),
    RefusedJSON("n_string_raw_tab", "\"\t\"", at: 1),
    RefusedJSON("n_string_raw_nul_after_escape", "\"\\n\u{0}\"", at: 3),
    RefusedJSON("n_string_invalid_escape", #""\x""#, at: 1),
    RefusedJSON("n_string_escaped_apostrophe", #""\'""#, at: 1),
    RefusedJSON("n_string_short_unicode_escape", #""\u12""#, at: 5),
    RefusedJSON("n_string_unicode_escape_bad_hex", #""\u12G4""#, at: 5),
    RefusedJSON("n_string_unicode_escape_truncated", #""\u12"#, at: 5),
    RefusedJSON("n_string_lone_high_surrogate", #""\uD800""#, at: 1),
    RefusedJSON("n_string_lone_low_surrogate", #""\uDC00""#, at: 1),
    RefusedJSON("n_string_high_surrogate_then_letter", #""\uD800\u0041""#, at: 1),
    RefusedJSON("n_string_high_surrogate_then_text", #""\uD800abcdef""#, at: 1),
    RefusedJSON("n_string_invalid_utf8", [0x22, 0xC3, 0x28, 0x22], at: 1),
    RefusedJSON("n_string_overlong_utf8", [0x22, 0xC0, 0xAF, 0x22], at: 1),
    RefusedJSON("n_string_utf8_encoded_surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], at: 1),
    RefusedJSON("n_string_truncated_utf8", [0x22, 0x61, 0xE2, 0x82, 0x22], at: 1),
    RefusedJSON("n_string_invalid_utf8_after_escape", [0x22, 0x5C, 0x6E, 0xFF, 0x22], at: 1),
    RefusedJSON("n_string_single_quoted", "'a'", at: 0),
    RefusedJSON("n_structure_bom", [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], at: 0),
    RefusedJSON("n_structure_nul_byte", [0x5B, 0x00, 0x5D], at: 1),
    RefusedJSON("n_structure_non_ascii_outside_string", "[é]", at: 1),
    RefusedJSON("n_literal_truncated", "tru", at: 3),
    RefusedJSON("n_literal_capitalised", "True", at: 0),
    RefusedJSON("n_literal_misspelled", "nulL", at: 3),
    RefusedJSON("n_literal_in_array_truncated", "[fals", at: 5),
    RefusedJSON("n_two_values", "1 2", at: 2),
    RefusedJSON("n_trailing_garbage", "{}x", at: 2),
    RefusedJSON("n_trailing_comma_top_level", "[],", at: 2),
    RefusedJSON("n_two_objects", "{}{}", at: 2),
]

@Suite("JSON parser")
struct JSONParserTests {
    @Test("accepts the valid corpus", arguments: acceptedCorpus)
    func accepts(_ sample: AcceptedJSON) throws {
        #expect(try JSONValue.parse(sample.bytes) == sample.expected)
    }

    @Test("refuses the invalid corpus at the right byte", arguments: refusedCorpus)
    func refuses(_ sample: RefusedJSON) {
        #expect {
            try JSONValue.parse(sample.bytes)
        } throws: { error in
            (error as? JSONParseError)?.offset == sample.offset
        }
    }

    @Test("errors say what is wrong")
    func messages() {
        let cases: [(String, String)] = [
            ("[1,]", "trailing comma at byte 3"),
            ("01", "number has a leading zero at byte 0"),
            ("\"a\nb\"", "control character byte 0x0A must be escaped in a string at byte 2"),
            (#""\uD800""#, "lone surrogate in \\u escape at byte 1"),
            ("[1 2]", "unexpected '2', expected ',' or ']' at byte 3"),
            ("{}x", "unexpected data after the JSON value at byte 2"),
            ("", "unexpected end of input, expected a value at byte 0"),
            ("1e400", "number is too large for a double at byte 0"),
        ]
        for (text, description) in cases {
            do {
                _ = try JSONValue.parse(text)
                Issue.record("\(text.debugDescription) was accepted")
            } catch {
                #expect(error.description == description, "for \(text.debugDescription)")
            }
        }
    }

    @Test("integers and doubles stay apart")
    func integersAndDoubles() throws {
        #expect(try JSONValue.parse("1") == .integer(1))
        #expect(try JSONValue.parse("1.0") == .double(1))
        #expect(try JSONValue.parse("1e0") == .double(1))
        #expect(try JSONValue.parse("1") != JSONValue.parse("1.0"))
    }

    @Test("big integers are exact")
    func bigIntegers() throws {
        #expect(try JSONValue.parse("9223372036854775807").int64Value == .max)
        #expect(try JSONValue.parse("-9223372036854775808").int64Value == .min)
        // 2^53 + 1 is the first integer a double cannot hold.
        let beyondDouble = try JSONValue.parse("[9007199254740993]")
        #expect(beyondDouble == [.integer(9_007_199_254_740_993)])
        #expect(beyondDouble.serialized() == Array("[9007199254740993]".utf8))
    }

    @Test("objects keep their key order")
    func keyOrder() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test("a duplicate key keeps its first position and its last value")
    func duplicateKeys() throws {
        let small = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(small.objectValue?.keys == ["a", "b"])
        #expect(small["a"] == 3)

        // Past the linear-search limit, duplicates are found through the hash index.
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let large = try JSONValue.parse("{\(keys),\"k7\":\"again\",\"k39\":null}")
        #expect(large.objectValue?.count == 40)
        #expect(large.objectValue?.keys.first == "k0")
        #expect(large.objectValue?.keys.last == "k39")
        #expect(large["k7"] == "again")
        #expect(large["k39"] == .null)
        #expect(large["k8"] == 8)
    }

    @Test("nesting up to the limit is accepted")
    func nestingAtLimit() throws {
        let depth = JSONValue.defaultMaximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONValue.parse(text)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            value = elements.first ?? .null
        }
        #expect(levels == depth)
    }

    @Test("nesting past the limit is refused where it goes too deep")
    func nestingPastLimit() {
        let depth = JSONValue.defaultMaximumDepth + 1
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: JSONParseError(offset: 512, message: "nesting is deeper than 512 levels")) {
            try JSONValue.parse(text)
        }
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(throws: JSONParseError(offset: 512 * 5, message: "nesting is deeper than 512 levels")) {
            try JSONValue.parse(objects)
        }
    }

    @Test("a million open brackets are refused without exhausting the stack")
    func hostileNesting() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(throws: JSONParseError(offset: 512, message: "nesting is deeper than 512 levels")) {
            try JSONValue.parse(bytes)
        }
        // With the limit raised the parser still never recurses; the input then simply ends.
        #expect(throws: JSONParseError(offset: 1_000_000, message: "unexpected end of input, expected a value")) {
            try JSONValue.parse(bytes, maximumDepth: 2_000_000)
        }
    }

    @Test("the depth limit can be lowered")
    func customDepth() throws {
        #expect(try JSONValue.parse("[[1]]", maximumDepth: 2) == [[1]])
        #expect(throws: JSONParseError(offset: 2, message: "nesting is deeper than 2 levels")) {
            try JSONValue.parse("[[[1]]]", maximumDepth: 2)
        }
        #expect(try JSONValue.parse("7", maximumDepth: 0) == 7)
    }

    @Test("raw memory and strings parse like byte arrays")
    func entryPoints() throws {
        let bytes = Array(#"{"a":[1,2.5,"é"]}"#.utf8)
        let expected: JSONValue = ["a": [1, 2.5, "é"]]
        #expect(try bytes.withUnsafeBytes { try JSONValue.parse($0) } == expected)
        #expect(try JSONValue.parse(#"{"a":[1,2.5,"é"]}"#) == expected)
        #expect(throws: JSONParseError(offset: 0, message: "unexpected end of input, expected a value")) {
            try JSONValue.parse(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}
