/// The page a destructive action shows before it acts: what will be deleted, and a button that
/// posts the same form again with `confirmed=yes`. Without JavaScript, and from the keyboard,
/// this is the confirmation.
enum ConfirmPage {
    /// The confirmation page.
    /// - Parameters:
    ///   - title: The question (`Delete zone Notes?`).
    ///   - message: What will happen, with counts.
    ///   - items: The things named, listed.
    ///   - action: Where the confirmed form posts (the same route).
    ///   - button: The button's words.
    ///   - fields: Hidden fields to post again.
    ///   - cancelURL: Where "Cancel" goes.
    ///   - bar: The container bar, when inside a container.
    static func page(
        title: String, message: String, items: [String] = [], action: String, button: String, fields: [[String: String]],
        cancelURL: String, bar: [String: Any]? = nil
    ) -> Page {
        var context: [String: Any] = [
            "title": title, "message": message, "items": items.prefix(200).map { ["name": $0] }, "hasItems": !items.isEmpty,
            "action": action, "button": button, "fields": fields, "cancelURL": cancelURL,
        ]
        if let bar { context["bar"] = bar }
        return Page("console.confirm", context: context)
    }
}
