@testable import BeaconFleet
import Synchronization
import Testing

@Suite("read-ahead: a sequence decoded on a task of its own, in bounded batches", .timeLimit(.minutes(1)))
struct ReadAheadTests {
    struct Broken: Error {}

    @Test("every element in order, across batches and a last short one; then the end")
    func order() async throws {
        let (source, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        for value in 0..<1000 { feed.yield(value) }
        feed.finish()
        let readAhead = ReadAhead(source, batchSize: 64, depth: 2)
        defer { readAhead.stop() }
        var read: [Int] = []
        while let batch = try await readAhead.next() { read += batch }
        #expect(read == Array(0..<1000))
        #expect(try await readAhead.next() == nil)
    }

    @Test("the source's error comes after what preceded it")
    func failure() async throws {
        let (source, feed) = AsyncThrowingStream<Int, any Error>.makeStream()
        for value in 0..<10 { feed.yield(value) }
        feed.finish(throwing: Broken())
        let readAhead = ReadAhead(source, batchSize: 4, depth: 8)
        defer { readAhead.stop() }
        var read: [Int] = []
        await #expect(throws: Broken.self) {
            while let batch = try await readAhead.next() { read += batch }
        }
        #expect(read == [0, 1, 2, 3, 4, 5, 6, 7])
    }

    @Test("bounded: the reading task waits while depth batches are unread")
    func bounded() async throws {
        let pulled = Atomic<Int>(0)
        let (pulls, pulling) = AsyncStream.makeStream(of: Int.self)
        // A source that counts what was taken from it and says so.
        let source = AsyncThrowingStream<Int, any Error> {
            let count = pulled.add(1, ordering: .relaxed).newValue
            pulling.yield(count)
            return count
        }
        let readAhead = ReadAhead(source, batchSize: 10, depth: 2)
        defer { readAhead.stop() }
        // Two batches handed over and unread: the task waits.
        for await count in pulls where count >= 20 { break }
        let first = try #require(try await readAhead.next())
        #expect(first == Array(1...10))
        // One read makes room for one more batch, and no more.
        for await count in pulls where count >= 30 { break }
        #expect(pulled.load(ordering: .relaxed) == 30)
    }

    @Test("a reader cancelled while waiting ends with nil; stop ends the reading")
    func cancellation() async throws {
        let (source, _) = AsyncThrowingStream<Int, any Error>.makeStream()
        let readAhead = ReadAhead(source, batchSize: 4, depth: 2)
        let waiting = Task { try await readAhead.next() }
        waiting.cancel()
        #expect(try await waiting.value == nil)
        readAhead.stop()
        #expect(try await readAhead.next() == nil)
    }
}
