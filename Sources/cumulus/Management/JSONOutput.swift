import CloudKitWire
import Foundation

/// Prints a management answer as indented JSON with sorted keys: what commands whose answer has
/// no shorter form print, for people and for `jq` alike.
func printJSON(_ value: JSONValue) {
    let bytes = Data(value.serialized())
    guard let object = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]),
        let pretty = try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    else {
        print(String(decoding: bytes, as: UTF8.self))
        return
    }
    print(String(decoding: pretty, as: UTF8.self))
}

/// Reads a JSON object from a file, or from standard input for `-`.
func readJSONObject(_ file: String, for command: String) throws -> JSONValue {
    let data: Data
    if file == "-" {
        data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
        guard let read = FileManager.default.contents(atPath: file) else { throw ManagementFailure(description: "Cannot read \(file)") }
        data = read
    }
    guard let value = try? JSONValue.parse(Array(data)), value.objectValue != nil else {
        throw ManagementFailure(description: "\(command) reads a JSON object from \(file == "-" ? "standard input" : file)")
    }
    return value
}
