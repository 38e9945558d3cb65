/// The `$ref`s of an OpenAPI document (parsed with JSONSerialization), and which of them do not
/// point at something the document defines.
public enum OpenAPIReferences {
    /// Every distinct `$ref` in `document`.
    public static func all(in document: [String: Any]) -> Set<String> {
        var references: Set<String> = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let ref = object["$ref"] as? String { references.insert(ref) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        return references
    }

    /// The references that are not local (`#/…`) or lead nowhere.
    public static func unresolved(in document: [String: Any]) -> [String] {
        all(in: document).sorted().filter { ref in
            guard ref.hasPrefix("#/") else { return true }
            var node: Any? = document
            for key in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(key)] }
            return node == nil
        }
    }
}
