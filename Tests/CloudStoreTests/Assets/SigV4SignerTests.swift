import Foundation
import Testing

@testable import CloudStore

/// The signer against AWS's published Signature Version 4 examples: the test suite's
/// `get-vanilla` cases and the S3 guide's GET Object example.
@Suite struct SigV4SignerTests {
    static let suiteSigner = SigV4Signer(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", region: "us-east-1", service: "service")
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func getVanilla() {
        let signed = Self.suiteSigner.sign(
            method: "GET", path: "/", headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: Self.emptyHash, timestamp: "20150830T123600Z")
        #expect(
            signed.canonicalRequest == """
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signed.stringToSign == """
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """)
        #expect(signed.signature == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
        #expect(
            signed.authorization == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func getVanillaQueryOrderKeyCase() {
        let signed = Self.suiteSigner.sign(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")], payloadHash: Self.emptyHash,
            timestamp: "20150830T123600Z")
        #expect(signed.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "Param1=value1&Param2=value2")
        #expect(signed.signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test func s3GetObjectWithARange() {
        let signer = SigV4Signer(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let signed = signer.sign(
            method: "GET", path: "/test.txt",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.emptyHash),
                ("x-amz-date", "20130524T000000Z"),
            ],
            payloadHash: Self.emptyHash, timestamp: "20130524T000000Z")
        #expect(signed.signedHeaders == "host;range;x-amz-content-sha256;x-amz-date")
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func aChangedByteChangesTheSignature() {
        let headers = [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")]
        let base = Self.suiteSigner.sign(
            method: "GET", path: "/", headers: headers, payloadHash: Self.emptyHash, timestamp: "20150830T123600Z")
        let otherPath = Self.suiteSigner.sign(
            method: "GET", path: "/a", headers: headers, payloadHash: Self.emptyHash, timestamp: "20150830T123600Z")
        let otherKey = SigV4Signer(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEz", region: "us-east-1",
            service: "service"
        )
        .sign(method: "GET", path: "/", headers: headers, payloadHash: Self.emptyHash, timestamp: "20150830T123600Z")
        #expect(Set([base.signature, otherPath.signature, otherKey.signature]).count == 3)
        #expect(!base.authorization.contains("wJalrXUtnFEMI"), "the secret never appears in the header")
    }

    @Test func timestampsAndEncoding() {
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 0.999)) == "19700101T000000Z")
        #expect(SigV4Signer.encode("a b/c~d.e_f-g+h=é") == "a%20b%2Fc~d.e_f-g%2Bh%3D%C3%A9")
        #expect(
            SigV4Signer.encode("iCloud.com.example/development/ab/abc", keepingSlashes: true) == "iCloud.com.example/development/ab/abc")
    }
}
