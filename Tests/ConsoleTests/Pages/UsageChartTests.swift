import CloudStore
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

    @Test func sparsePointsGetMarkersAndBusyOnesDoNot() throws {
        let sparse = UsageChart(
            id: "t", title: "T", series: [.init(name: "A", style: "series-a", values: [0, 0, 4, 0, nil, 2, nil])],
            format: { "\($0)" }, starts: Array(0..<7), timeLabel: { "t\($0)" })
        let markers = try #require((sparse.context["series"] as? [[String: Any]])?.first?["markers"] as? String)
        #expect(markers == "M2.5 0.00 h0.001 M5.5 50.00 h0.001", "each point above zero, the lone one among them")
        let busy = UsageChart(
            id: "t", title: "T", series: [.init(name: "A", style: "series-a", values: (0..<20).map { Int64($0 + 1) })],
            format: { "\($0)" }, starts: Array(0..<20), timeLabel: { "t\($0)" })
        #expect((busy.context["series"] as? [[String: Any]])?.first?["markers"] as? String == "")
    }

    @Test func chartsBeginShortlyBeforeTheFirstCall() {
        func points(_ requests: [Int64]) -> [UsagePoint] {
            requests.enumerated().map { UsagePoint(start: Int64($0.offset), requests: $0.element, errors: 0, bytesIn: 0, bytesOut: 0) }
        }
        let late = points(Array(repeating: 0, count: 50) + [3] + Array(repeating: 0, count: 9))
        #expect(UsagePages.fitted(late).map(\.start) == Array(48..<60), "two buckets before the first call, twelve at least")
        let early = points([0, 0, 0, 5] + Array(repeating: 0, count: 56))
        #expect(UsagePages.fitted(early).first?.start == 1)
        #expect(UsagePages.fitted(points(Array(repeating: 0, count: 60))).count == 60, "no calls: the whole range")
    }
}
