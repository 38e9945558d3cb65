// libFuzzer entry point for the JSON codec; built by run-json.sh together with
// Sources/CloudKitWire/JSON/*.swift into one module, so no `import` is needed.
//
// Every input must either parse or fail with an offset inside the input; whatever parses must
// serialize to text that parses back to the same value and serializes to the same bytes.
// A broken property stops the run through `fatalError`, which libFuzzer records as a crash.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)

    let value: JSONValue
    do {
        value = try JSONValue.parse(input)
    } catch {
        if error.offset < 0 || error.offset > count {
            fatalError("error offset \(error.offset) outside an input of \(count) bytes: \(error)")
        }
        checkNumericString(input)
        return 0
    }

    let text = value.serialized()
    let again: JSONValue
    do {
        again = try JSONValue.parse(text)
    } catch {
        fatalError("serialized text did not parse: \(error)")
    }
    if again != value {
        fatalError("round trip changed the value")
    }
    if again.serialized() != text {
        fatalError("second serialization differs from the first")
    }
    checkNumericString(input)
    return 0
}

/// The accessors that accept numbers sent as strings read the same grammar; they must agree
/// with the parser on what is a number.
private func checkNumericString(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    let integer = JSONValue.string(text).int64Value(acceptingNumericString: true)
    let double = JSONValue.string(text).doubleValue(acceptingNumericString: true)
    if integer != nil, double == nil {
        fatalError("an integer string must also read as a double")
    }
    if let double, let parsed = try? JSONValue.parse(text), parsed.doubleValue != double {
        fatalError("numeric string and parser disagree on \(text)")
    }
}
