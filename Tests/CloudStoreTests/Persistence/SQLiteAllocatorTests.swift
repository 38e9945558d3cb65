import CSQLite
import CSQLiteSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// SQLite's allocator, which keeps freed small blocks per thread for reuse (Debian's SQLite has
/// no lookaside memory): what SQLite asks of an allocator, and what the store relies on.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct SQLiteAllocatorTests {
    /// The allocator is SQLite's once a connection has opened.
    private static func installed() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try SQLiteConnection(path: directory.path + "/allocator.sqlite")
        return directory
    }

    /// A byte pattern that differs per block and per position, to find a copy gone wrong.
    private static func fill(_ pointer: UnsafeMutableRawPointer, count: Int, seed: Int) {
        for offset in 0..<count {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 31 &+ seed), toByteOffset: offset, as: UInt8.self)
        }
    }

    private static func holds(_ pointer: UnsafeMutableRawPointer, count: Int, seed: Int) -> Bool {
        (0..<count).allSatisfy { pointer.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    @Test func theStoreInstallsIt() throws {
        _ = try Self.installed()
        #expect(CSQLiteSupport_allocatorInstalled() == 1)
    }

    /// Every size from 1 byte to past the largest kept class gets at least that many bytes,
    /// aligned for any value, and keeps what is written into it.
    @Test func everySizeGetsItsBytes() throws {
        _ = try Self.installed()
        var blocks: [(UnsafeMutableRawPointer, Int)] = []
        for size in Array(1...4_200) + [8_191, 65_536, 1_000_000] {
            let block = try #require(sqlite3_malloc(Int32(size)))
            #expect(Int(bitPattern: block) % 16 == 0)
            #expect(sqlite3_msize(block) >= UInt64(size))
            Self.fill(block, count: size, seed: size)
            blocks.append((block, size))
        }
        for (block, size) in blocks {
            #expect(Self.holds(block, count: size, seed: size), "block of \(size) bytes")
            sqlite3_free(block)
        }
        sqlite3_free(nil)
        #expect(sqlite3_malloc(0) == nil)
    }

    /// A freed small block is the next block of its class on the same thread; a large one is not kept.
    @Test func aFreedSmallBlockIsReused() throws {
        _ = try Self.installed()
        let first = try #require(sqlite3_malloc(100))
        let kept = CSQLiteSupport_blocksKeptByThisThread()
        sqlite3_free(first)
        #expect(CSQLiteSupport_blocksKeptByThisThread() == kept + 1)
        let second = try #require(sqlite3_malloc(120))
        #expect(second == first)
        #expect(CSQLiteSupport_blocksKeptByThisThread() == kept)
        sqlite3_free(second)

        let large = try #require(sqlite3_malloc(3_000))
        let before = CSQLiteSupport_blocksKeptByThisThread()
        sqlite3_free(large)
        #expect(CSQLiteSupport_blocksKeptByThisThread() == before)
    }

    /// Growing and shrinking keeps the bytes that fit, across classes and past the largest.
    @Test func reallocationKeepsTheContent() throws {
        _ = try Self.installed()
        let sizes = [1, 31, 32, 33, 64, 65, 500, 2_048, 2_049, 10_000, 100_000, 3_000, 700, 40, 1, 5_000]
        var block = try #require(sqlite3_malloc(Int32(sizes[0])))
        Self.fill(block, count: sizes[0], seed: 7)
        for (previous, size) in zip(sizes, sizes.dropFirst()) {
            block = try #require(sqlite3_realloc(block, Int32(size)))
            #expect(sqlite3_msize(block) >= UInt64(size))
            #expect(Self.holds(block, count: min(previous, size), seed: 7), "\(previous) → \(size) bytes")
            Self.fill(block, count: size, seed: 7)
        }
        sqlite3_free(block)
        let fresh = try #require(sqlite3_realloc(nil, 77))
        #expect(sqlite3_msize(fresh) >= 77)
        sqlite3_free(fresh)
    }

    /// Blocks made on one thread and freed on others, by threads that then exit, stay whole:
    /// every block holds its own bytes until freed, whichever thread frees it.
    private static func size(_ index: Int, _ thread: Int) -> Int { 1 + (index * 37 + thread * 11) % 2_500 }

    @Test func blocksCrossThreads() throws {
        _ = try Self.installed()
        let made = (0..<4).map { thread in
            (0..<600).map { index -> UInt in
                let block = sqlite3_malloc(Int32(Self.size(index, thread)))!
                Self.fill(block, count: Self.size(index, thread), seed: index)
                return UInt(bitPattern: block)
            }
        }
        let intact = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        for (thread, blocks) in made.enumerated() {
            // A thread of its own, which exits holding the blocks it kept.
            Thread {
                var whole = 0
                for (index, address) in blocks.enumerated() {
                    let block = UnsafeMutableRawPointer(bitPattern: address)!
                    if Self.holds(block, count: Self.size(index, thread), seed: index) { whole += 1 }
                    sqlite3_free(block)
                    // Allocations between the frees take kept blocks back.
                    let again = sqlite3_malloc(Int32(Self.size(index, thread)))!
                    Self.fill(again, count: Self.size(index, thread), seed: 3)
                    let grown = sqlite3_realloc(again, Int32(Self.size(index, thread) * 2))!
                    if Self.holds(grown, count: Self.size(index, thread), seed: 3) { whole += 1 }
                    sqlite3_free(grown)
                }
                intact.withLock { $0 += whole }
                done.signal()
            }.start()
        }
        for _ in made { done.wait() }
        #expect(intact.withLock { $0 } == 4 * 600 * 2)
    }
}
