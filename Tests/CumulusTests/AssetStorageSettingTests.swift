import CloudStore
import Foundation
import TestSupport
import Testing

@testable import cumulus

/// `--assets`, `--assets-endpoint`, `--assets-region` and the `CUMULUS_ASSETS_*` variables, for
/// `serve` and the commands that open the data directory; the secret key never shows.
@Suite struct AssetStorageSettingTests {
    static let secret = "very-secret-\(UUID().uuidString)"
    static let keys = ["CUMULUS_ASSETS_ACCESS_KEY_ID": "AKIDTEST", "CUMULUS_ASSETS_SECRET_ACCESS_KEY": secret]

    @Test func theDataDirectoryADirectoryOrABucket() throws {
        #expect(try ServerSettings.resolve(arguments: [], environment: [:]).assetStorage == .dataDirectory)
        #expect(
            try ServerSettings.resolve(arguments: ["--assets", "/srv/assets"], environment: [:]).assetStorage == .directory("/srv/assets"))
        let environment = Self.keys.merging(["CUMULUS_ASSETS": "s3://cumulus-assets", "CUMULUS_ASSETS_ENDPOINT": "http://127.0.0.1:8333"]) {
            $1
        }
        let settings = try ServerSettings.resolve(arguments: ["--assets-region", "eu-west-3"], environment: environment)
        guard case .s3(let bucket) = settings.assetStorage else { Issue.record("\(settings.assetStorage)"); return }
        #expect(bucket.bucket == "cumulus-assets" && bucket.host == "127.0.0.1" && bucket.port == 8333 && bucket.region == "eu-west-3")
        #expect(bucket.accessKeyID == "AKIDTEST" && bucket.secretAccessKey == Self.secret)
        #expect(settings.assetStorage.description == "s3://cumulus-assets at http://127.0.0.1:8333 (eu-west-3)")
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!String(describing: settings).contains(Self.secret) && !dumped.contains(Self.secret) && !"\(bucket)".contains(Self.secret))
        #expect(String(reflecting: bucket) == bucket.description)
    }

    @Test func incompleteOrMalformedChoicesAreRefusedWithoutTheSecret() {
        for (arguments, environment) in [
            (["--assets", "s3://cumulus-assets"], Self.keys),
            (["--assets", "s3://cumulus-assets", "--assets-endpoint", "http://127.0.0.1:8333"], [:]),
            (["--assets", "s3://cumulus-assets", "--assets-endpoint", "https://s3.amazonaws.com"], Self.keys),
            (["--assets", "s3://Not_A_Bucket", "--assets-endpoint", "http://127.0.0.1:8333"], Self.keys),
            (["--assets", "s3://cumulus-assets/prefix", "--assets-endpoint", "http://127.0.0.1:8333"], Self.keys),
            (["--assets", "s3://cumulus-assets", "--assets-endpoint", "http://user:pw@127.0.0.1:8333"], Self.keys),
            (["--assets-endpoint", "http://127.0.0.1:8333"], Self.keys),
        ] {
            do {
                _ = try ServerSettings.resolve(arguments: arguments, environment: environment)
                Issue.record("\(arguments) must be refused")
            } catch {
                #expect(!"\(error)".contains(Self.secret), "\(error)")
                #expect("\(error)".contains("--assets"), "\(error)")
            }
        }
    }

    @Test func commandsTakeTheSameOptions() throws {
        let directory = try TemporaryDirectory()
        let missingKeys = try CumulusBinary.run([
            "containers", "list", "--data-dir", directory.path, "--assets", "s3://cumulus-assets",
            "--assets-endpoint", "http://127.0.0.1:9",
        ])
        #expect(missingKeys.status != 0 && missingKeys.error.contains("CUMULUS_ASSETS_SECRET_ACCESS_KEY"), "\(missingKeys.error)")
        let listed = try CumulusBinary.run(["containers", "list", "--data-dir", directory.path, "--assets", directory.path + "/blobs"])
        #expect(listed.status == 0, "\(listed.error)")
    }

    @Test func serveRefusesToStartOnABucketThatIsNotThere() throws {
        let moto = try S3TestServer.moto()
        let directory = try TemporaryDirectory()
        let result = try CumulusBinary.run(
            [
                "serve", "--port", "0", "--data-dir", directory.path, "--no-demo", "--assets", "s3://no-such-bucket",
                "--assets-endpoint", "http://127.0.0.1:\(moto.port)",
            ],
            environment: Self.keys)
        #expect(result.status != 0)
        #expect(result.error.contains("no bucket 'no-such-bucket'"), "\(result.error)")
        #expect(!result.output.contains(Self.secret) && !result.error.contains(Self.secret))
    }
}
