import CloudStore
import Foundation
import Testing

@Suite("Password hashing")
struct PasswordHasherTests {
    /// Cheap parameters so the suite stays fast; the format and checks do not depend on them.
    let hasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))

    @Test("the default parameters are N = 2^15, r = 8, p = 1")
    func defaults() throws {
        #expect(PasswordHasher.Parameters.default == .init(logN: 15, blockSize: 8, parallelism: 1))
        let stored = try PasswordHasher().hash(password: "correct horse battery staple")
        #expect(stored.hasPrefix("$scrypt$ln=15,r=8,p=1$"))
        #expect(PasswordHasher().verify(password: "correct horse battery staple", against: stored))
    }

    @Test("the stored form names its parameters, a 16-byte salt and a 32-byte hash")
    func storedForm() throws {
        let stored = try hasher.hash(password: "secret")
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        #expect(fields.count == 5)
        #expect(fields[1] == "scrypt")
        #expect(fields[2] == "ln=10,r=8,p=1")
        #expect(fields[3].count == 22)  // 16 bytes, base64 without padding
        #expect(fields[4].count == 43)  // 32 bytes, base64 without padding
        #expect(!fields[3].contains("=") && !fields[4].contains("="))
        #expect(PasswordHasher.parameters(of: stored) == .init(logN: 10, blockSize: 8, parallelism: 1))
    }

    @Test("verifies the right password and only it")
    func verify() throws {
        let stored = try hasher.hash(password: "correct horse")
        #expect(hasher.verify(password: "correct horse", against: stored))
        #expect(!hasher.verify(password: "correct horse ", against: stored))
        #expect(!hasher.verify(password: "Correct horse", against: stored))
        #expect(!hasher.verify(password: "", against: stored))
        // The stored parameters count, not the verifier's own.
        #expect(PasswordHasher(parameters: .default).verify(password: "correct horse", against: stored))
    }

    @Test("RFC 7914's test vector verifies")
    func knownVector() {
        // RFC 7914 §12, third vector: P = "pleaseletmein", S = "SodiumChloride", N = 16384,
        // r = 8, p = 1; the derived key begins 70 23 bd cb 3a fd 73 48 … (first 32 bytes here).
        let stored = "$scrypt$ln=14,r=8,p=1$U29kaXVtQ2hsb3JpZGU$cCO9yzr9c0hGHAbNgf046/2o+7qQT44+qbVD9lRdofI"
        #expect(PasswordHasher.parameters(of: stored) == .init(logN: 14, blockSize: 8, parallelism: 1))
        #expect(hasher.verify(password: "pleaseletmein", against: stored))
        #expect(!hasher.verify(password: "pleaseletmeout", against: stored))
    }

    @Test("each hash has its own salt")
    func salts() throws {
        let first = try hasher.hash(password: "same")
        let second = try hasher.hash(password: "same")
        #expect(first != second)
        #expect(first.split(separator: "$")[2] != second.split(separator: "$")[2])
        #expect(hasher.verify(password: "same", against: first))
        #expect(hasher.verify(password: "same", against: second))
    }

    @Test("Unicode passwords verify whatever the composition")
    func unicode() throws {
        let composed = "caf\u{E9} \u{1F600}"
        let decomposed = "cafe\u{301} \u{1F600}"
        let stored = try hasher.hash(password: composed)
        #expect(hasher.verify(password: composed, against: stored))
        #expect(hasher.verify(password: decomposed, against: stored))
        #expect(!hasher.verify(password: "cafe \u{1F600}", against: stored))
    }

    @Test("refuses empty and overlong passwords")
    func refusals() throws {
        #expect(throws: CloudStoreError.badRequest("The password must not be empty")) {
            try hasher.hash(password: "")
        }
        #expect(throws: CloudStoreError.badRequest("The password is longer than 1024 bytes")) {
            try hasher.hash(password: String(repeating: "a", count: 1025))
        }
        // The limit counts UTF-8 bytes: 342 three-byte characters are 1026 bytes.
        #expect(throws: CloudStoreError.badRequest("The password is longer than 1024 bytes")) {
            try hasher.hash(password: String(repeating: "中", count: 342))
        }
        let longest = String(repeating: "a", count: 1024)
        let stored = try hasher.hash(password: longest)
        #expect(hasher.verify(password: longest, against: stored))
        #expect(!hasher.verify(password: longest + "a", against: stored))
    }

    @Test("refuses to hash with parameters beyond its limits")
    func unsupportedParameters() {
        let greedy = PasswordHasher(parameters: .init(logN: 22, blockSize: 8, parallelism: 1))
        #expect(throws: CloudStoreError.internalError("scrypt parameters ln=22,r=8,p=1 are outside the supported range")) {
            try greedy.hash(password: "x")
        }
    }

    @Test(
        "malformed or foreign stored strings verify as false",
        arguments: [
            "",
            "password",
            "$scrypt$",
            "$scrypt$ln=10,r=8,p=1$",
            "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$",
            "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA$extra",
            "scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$bcrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$r=8,ln=10,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=10,r=8$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=-1,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=0,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=99,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=20,r=32,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=99999999999999999999,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=10,r=8,p=1$!!!!$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=10,r=8,p=1$c2Fs$aGFzaGhhc2hoYXNoaGFzaA",
            "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$aGFzaA",
            "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaB",
            "$scrypt$ln=１0,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        ])
    func malformed(stored: String) {
        #expect(!hasher.verify(password: "password", against: stored))
    }

    @Test("a stored hash names the parameters it was made with, so other parameters are told apart")
    func storedParameters() throws {
        let weak = try hasher.hash(password: "pw")
        #expect(PasswordHasher.parameters(of: weak) == hasher.parameters)
        #expect(PasswordHasher.parameters(of: weak) != PasswordHasher().parameters)
        #expect(PasswordHasher.parameters(of: "garbage") == nil)
    }

    @Test("time per hash for candidate parameters (printed, not asserted)")
    func timing() throws {
        let clock = ContinuousClock()
        #if DEBUG
            let build = "debug build: BoringSSL is unoptimised; use -c release for real numbers"
        #else
            let build = "release build"
        #endif
        print("scrypt, \(build):")
        for logN in [14, 15, 16] {
            let candidate = PasswordHasher(parameters: .init(logN: logN, blockSize: 8, parallelism: 1))
            var stored = ""
            let rounds = 3
            let elapsed = try clock.measure {
                for _ in 0..<rounds { stored = try candidate.hash(password: "correct horse battery staple") }
            }
            #expect(candidate.verify(password: "correct horse battery staple", against: stored))
            let milliseconds = (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000
            print("  ln=\(logN),r=8,p=1 (\((128 * 8 << logN) >> 20) MiB): \(Int(milliseconds / Double(rounds))) ms per hash")
        }
    }
}
