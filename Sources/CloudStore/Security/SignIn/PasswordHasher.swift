import Crypto
import CryptoExtras
import Foundation

/// Hashes and checks passwords with scrypt (RFC 7914).
///
/// A hash is stored as one self-describing string that carries its own parameters and salt,
/// so parameters can be raised later without breaking stored hashes:
///
///     $scrypt$ln=15,r=8,p=1$<salt, base64 without padding>$<hash, base64 without padding>
///
/// `ln` is log2 of scrypt's cost N, `r` its block size, `p` its parallelism; the salt is 16
/// random bytes and the hash 32 bytes. Passwords are normalised to Unicode NFC first, so the
/// same password typed on systems that compose accents differently still verifies.
///
/// ```swift
/// let hasher = PasswordHasher()
/// let stored = try hasher.hash(password: "correct horse")
/// hasher.verify(password: "correct horse", against: stored)  // true
/// ```
public struct PasswordHasher: Sendable {
    /// scrypt's cost parameters.
    public struct Parameters: Hashable, Sendable, CustomStringConvertible {
        /// log2 of the CPU/memory cost N.
        public var logN: Int
        /// The block size r.
        public var blockSize: Int
        /// The parallelism p.
        public var parallelism: Int

        /// N = 2^15, r = 8, p = 1: 32 MiB and 71–77 ms per hash measured in a release build on
        /// a busy 2-core server (2^14 took 43–57 ms, 2^16 138–147 ms), inside the 50–100 ms a
        /// sign-in can afford.
        public static let `default` = Parameters(logN: 15, blockSize: 8, parallelism: 1)

        /// Creates parameters.
        /// - Parameters:
        ///   - logN: log2 of the cost N.
        ///   - blockSize: The block size r.
        ///   - parallelism: The parallelism p.
        public init(logN: Int, blockSize: Int, parallelism: Int) {
            self.logN = logN
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// `ln=15,r=8,p=1`, as written in a stored hash.
        public var description: String { "ln=\(logN),r=\(blockSize),p=\(parallelism)" }

        /// Whether the parameters are ones this hasher will run. Bounds keep a forged or
        /// corrupted stored hash from making verification take unbounded memory or time.
        var isWithinLimits: Bool {
            (1...20).contains(logN) && (1...32).contains(blockSize) && (1...16).contains(parallelism)
                && 128 * blockSize * (1 << logN) <= 256 * 1024 * 1024
        }
    }

    /// The longest password accepted, in UTF-8 bytes after normalisation.
    public static let maximumPasswordBytes = 1024

    private static let saltBytes = 16
    private static let hashBytes = 32

    /// The parameters new hashes are made with.
    public var parameters: Parameters

    /// Creates a hasher.
    /// - Parameter parameters: The parameters for new hashes; verification always uses the
    ///   parameters stored in the hash being checked.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Hashes a password with a fresh random salt.
    /// - Parameter password: The password.
    /// - Returns: The self-describing stored form.
    /// - Throws: `CloudStoreError.badRequest` when the password is empty or longer than
    ///   ``maximumPasswordBytes``; `CloudStoreError.internalError` if the parameters are out of
    ///   bounds or the key derivation fails.
    public func hash(password: String) throws(CloudStoreError) -> String {
        let bytes = try Self.passwordBytes(password)
        guard parameters.isWithinLimits else {
            throw .internalError("scrypt parameters \(parameters) are outside the supported range")
        }
        let salt = SecureToken.randomBytes(Self.saltBytes)
        guard let derived = Self.derive(bytes, salt: salt, parameters: parameters, count: Self.hashBytes) else {
            throw .internalError("scrypt key derivation failed")
        }
        return "$scrypt$\(parameters)$\(Self.encode(salt))$\(Self.encode(derived))"
    }

    /// Checks a password against a stored hash, comparing in constant time.
    /// - Parameters:
    ///   - password: The password offered.
    ///   - stored: A string made by ``hash(password:)``.
    /// - Returns: `true` when the password matches. `false` for a wrong password, for a
    ///   password ``hash(password:)`` would refuse, and for a stored string that is malformed,
    ///   of another scheme, or has parameters beyond this hasher's limits.
    public func verify(password: String, against stored: String) -> Bool {
        guard let bytes = try? Self.passwordBytes(password), let parsed = Self.parse(stored),
            let derived = Self.derive(bytes, salt: parsed.salt, parameters: parsed.parameters, count: parsed.hash.count)
        else { return false }
        return SecureToken.constantTimeEquals(derived, parsed.hash)
    }

    /// The parameters a stored hash was made with.
    /// - Parameter stored: A stored hash.
    /// - Returns: The parameters, or `nil` when the string is not a well-formed scrypt hash.
    public static func parameters(of stored: String) -> Parameters? {
        parse(stored)?.parameters
    }

    // MARK: - Internals

    private static func passwordBytes(_ password: String) throws(CloudStoreError) -> [UInt8] {
        let bytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
        guard !bytes.isEmpty else {
            throw .badRequest("The password must not be empty")
        }
        guard bytes.count <= maximumPasswordBytes else {
            throw .badRequest("The password is longer than \(maximumPasswordBytes) bytes")
        }
        return bytes
    }

    private static func derive(_ password: [UInt8], salt: [UInt8], parameters: Parameters, count: Int) -> [UInt8]? {
        guard parameters.isWithinLimits else { return nil }
        guard
            let key = try? KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: count,
                rounds: 1 << parameters.logN, blockSize: parameters.blockSize, parallelism: parameters.parallelism)
        else { return nil }
        return key.withUnsafeBytes { Array($0) }
    }

    private static func parse(_ stored: String) -> (parameters: Parameters, salt: [UInt8], hash: [UInt8])? {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }

        let settings = fields[2].split(separator: ",", omittingEmptySubsequences: false)
        guard settings.count == 3 else { return nil }
        func value(_ setting: Substring, named name: String) -> Int? {
            guard setting.hasPrefix(name + "="), let digits = setting.dropFirst(name.count + 1).nilIfEmpty,
                digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber })
            else { return nil }
            return Int(digits)
        }
        guard let logN = value(settings[0], named: "ln"), let blockSize = value(settings[1], named: "r"),
            let parallelism = value(settings[2], named: "p")
        else { return nil }
        let parameters = Parameters(logN: logN, blockSize: blockSize, parallelism: parallelism)

        guard parameters.isWithinLimits,
            let salt = decode(fields[3]), (8...64).contains(salt.count),
            let hash = decode(fields[4]), (16...64).contains(hash.count)
        else { return nil }
        return (parameters, salt, hash)
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes unpadded base64, accepting only the canonical form `encode` writes.
    private static func decode(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.count <= 128, !text.contains("=") else { return nil }
        let padded = String(text) + String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: padded) else { return nil }
        let bytes = Array(data)
        return encode(bytes) == text ? bytes : nil
    }
}

extension Substring {
    fileprivate var nilIfEmpty: Substring? { isEmpty ? nil : self }
}
