import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct LimitsCommandTests {
    @Test func limitsAreShownAndChangedAndARunningStoreSeesTheChange() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let server = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        let container = try ContainerIdentifier("iCloud.com.example.Notes")
        try server.createContainer(container)
        #expect(try server.limits(of: container, .production) == .standard)

        let shown = try CumulusBinary.run(["limits", "--container", container.rawValue, "--environment", "production", "--data-dir", data])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("requests:  5000 a second, bursts of 10000 (standard)"))
        #expect(shown.output.contains("storage:   0 bytes in 0 records, limit none"))

        let changed = try CumulusBinary.run([
            "limits", "--container", container.rawValue, "--environment", "production", "--preset", "cloudkit", "--storage-bytes",
            "1000000",
            "--transfer-bytes", "5000000", "--data-dir", data,
        ])
        #expect(changed.status == 0, "\(changed.error)")
        #expect(changed.output.contains("requests:  40 a second, bursts of 40"))
        #expect(changed.output.contains("limit 1000000 bytes") && changed.output.contains("limit 5000000 bytes"))
        // The running store reads the catalog again within a second of another process's change.
        Thread.sleep(forTimeInterval: 1.1)
        #expect(
            try server.limits(of: container, .production)
                == EnvironmentLimits(
                    requestsPerSecond: 40, burst: 40, storageBytes: 1_000_000, transferBytesPerMonth: 5_000_000))

        let removed = try CumulusBinary.run([
            "limits", "--container", container.rawValue, "--environment", "production", "--storage-bytes", "none", "--data-dir", data,
        ])
        #expect(removed.output.contains("storage:   0 bytes in 0 records, limit none"))

        let refused = try CumulusBinary.run(["limits", "--container", container.rawValue, "--burst", "lots", "--data-dir", data])
        #expect(refused.status != 0)
        #expect(refused.error.contains("burst must be a number"))
        #expect(try server.limits(of: container, .development) == .standard)
    }
}
