import Testing

@testable import Console

@Suite struct UsageChartTests {
    @Test func theScaleRoundsUpToAnEvenStep() {
        #expect(
            [0, 1, 2, 3, 5, 9, 10, 11, 123, 999, 1_000, 4_001].map(UsageChart.roundedUp) == [
                2, 2, 2, 4, 6, 10, 10, 20, 200, 1_000, 1_000, 6_000,
            ])
    }

    @Test func linesBreakWhereNothingWasMeasuredAndLonePointsAreDashes() throws {
        let chart = UsageChart(
            id: "t", title: "T", series: [.init(name: "A", style: "series-a", values: [10, 20, nil, 5, nil])],
            format: { "\($0)" }, starts: [0, 1, 2, 3, 4], timeLabel: { "t\($0)" })
        let context = chart.context
        let series = try #require(context["series"] as? [[String: Any]])
        #expect(series.first?["path"] as? String == "M0.5 50.00 L1.5 0.00 M3.1 75.00 H3.9")
        #expect((context["yLabels"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["20", "10", "0"])
        #expect(context["description"] as? String == "T, t0 to t4. A: at most 20, last 5.")
    }
}
