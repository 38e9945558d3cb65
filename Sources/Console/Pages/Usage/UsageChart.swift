import Foundation

/// A line chart of usage over time, as the usage page draws it: the lines as SVG paths in a
/// box one unit wide per bucket and 100 high (stretched to the page's width), and the axis
/// labels as text beside it, so that they keep their size on a phone.
struct UsageChart {
    /// One line.
    struct Series {
        var name: String
        /// The CSS class that colours it.
        var style: String
        /// One value per bucket; `nil` where there is nothing to draw (no calls to time).
        var values: [Int64?]
    }

    var id: String
    var title: String
    var series: [Series]
    /// How values are written on the axis.
    var format: (Int64) -> String
    /// A limit to draw as a dashed line, when it is near enough to the values to be seen.
    var limit: Int64?
    /// The bucket starts, in milliseconds since 1970, and how to write them.
    var starts: [Int64]
    var timeLabel: (Int64) -> String

    /// The template's context: `id`, `title`, `width`, `description`, `series` [{name, style,
    /// path, markers}], `limitY`, `limitLabel`, `yLabels` [{label}], `xLabels` [{label}].
    var context: [String: Any] {
        let peak = series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0
        var top = Self.roundedUp(peak)
        var context: [String: Any] = ["id": id, "title": title, "width": starts.count]
        if let limit, limit > 0, limit <= top * 2 {
            top = Self.roundedUp(max(limit, peak))
            context["limitY"] = Self.y(limit, top: top)
            context["limitLabel"] = "limit " + format(limit)
        }
        context["series"] = series.map { series -> [String: Any] in
            [
                "name": series.name, "style": series.style, "path": Self.path(series.values, top: top),
                "markers": Self.markers(series.values, top: top),
            ]
        }
        context["yLabels"] = [top, top / 2, 0].map { ["label": format($0)] }
        let count = starts.count
        context["xLabels"] = [0, count / 4, count / 2, 3 * count / 4, count - 1].map { ["label": timeLabel(starts[$0])] }
        context["description"] = description(peak: peak)
        return context
    }

    /// What the chart shows, in words, for those who cannot see it.
    private func description(peak: Int64) -> String {
        let parts = series.map { series -> String in
            let values = series.values.compactMap { $0 }
            guard let highest = values.max() else { return "\(series.name): nothing measured" }
            return "\(series.name): at most \(format(highest)), last \(format(values.last ?? 0))"
        }
        return "\(title), \(timeLabel(starts.first ?? 0)) to \(timeLabel(starts.last ?? 0)). " + parts.joined(separator: "; ") + "."
    }

    /// The smallest of 1, 2, 4, 6 or 8 times a power of ten, and at least 2, that is at least
    /// `value`: even, so that the middle line's label is a whole number too.
    static func roundedUp(_ value: Int64) -> Int64 {
        guard value > 2 else { return 2 }
        var power: Int64 = 1
        while power <= value / 10 { power *= 10 }
        for step: Int64 in [1, 2, 4, 6, 8] where power * step >= value && (power * step) % 2 == 0 {
            return power * step
        }
        return power * 10
    }

    private static func y(_ value: Int64, top: Int64) -> String {
        String(format: "%.2f", 100 - 100 * Double(min(value, top)) / Double(top))
    }

    /// A path through the values at the middle of each bucket, broken where a value is missing
    /// (a gap: nothing was measured there); a value alone between gaps is a dash across its
    /// bucket, which its marker (``markers(_:top:)``) makes a dot on a wide chart.
    private static func path(_ values: [Int64?], top: Int64) -> String {
        var commands: [String] = []
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            let point = "\(Double(index) + 0.5) \(y(value, top: top))"
            let joined = index > 0 && values[index - 1] != nil
            let alone = !joined && (index + 1 == values.count || values[index + 1] == nil)
            if alone {
                commands.append("M\(Double(index) + 0.1) \(y(value, top: top)) H\(Double(index) + 0.9)")
            } else {
                commands.append((joined ? "L" : "M") + point)
            }
        }
        return commands.joined(separator: " ")
    }

    /// Points too sparse for a line to show them: each value alone between gaps, and every
    /// value above zero when there are at most ``sparsePoints`` of them. Each is a subpath of
    /// no length that the stylesheet draws as a round dot, the same on any width.
    private static func markers(_ values: [Int64?], top: Int64) -> String {
        let sparse = values.filter { ($0 ?? 0) > 0 }.count <= sparsePoints
        var commands: [String] = []
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            let alone = (index == 0 || values[index - 1] == nil) && (index + 1 == values.count || values[index + 1] == nil)
            guard alone || (sparse && value > 0) else { continue }
            commands.append("M\(Double(index) + 0.5) \(y(value, top: top)) h0.001")
        }
        return commands.joined(separator: " ")
    }

    /// Values above zero a series may have and still be marked point by point.
    static let sparsePoints = 12
}
