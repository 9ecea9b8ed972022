import BeaconCore
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a file or of standard input, as byte arrays without their `\n` (a `\r`
/// before it is dropped too). Reading happens one chunk at a time as lines are consumed,
/// on a dispatch queue rather than a Swift concurrency thread, so a pipe that waits for
/// its writer never blocks the cooperative pool.
///
/// A line longer than `maximumLineLength` is cut there and returned as such; the reader
/// never holds more than two chunks plus that many bytes, whatever the input. The lines
/// are cut by `SightingLineDecoder` through the framing loop every recording format shares
/// (`FramingReader`); the descriptor, its reads and their cancellation are here.
public struct SightingLineReader: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private enum Origin: Sendable {
        case path(String)
        /// A reader already opened (and perhaps peeked at) by `SightingRecording.open`.
        case resumed(AsyncIterator)
    }

    private let origin: Origin
    let maximumLineLength: Int

    /// `-` reads standard input. The file is opened when iteration starts; a file that
    /// cannot be opened ends the iteration with a `SightingStreamError`.
    public init(path: String) {
        self.init(path: path, maximumLineLength: SightingJSONLines.maximumLineLength + 1)
    }

    init(path: String, maximumLineLength: Int) {
        self.origin = .path(path)
        self.maximumLineLength = maximumLineLength
    }

    /// Continues an opened reader. Iterate it once: copies share the file.
    init(resuming reader: AsyncIterator) {
        self.origin = .resumed(reader)
        self.maximumLineLength = SightingJSONLines.maximumLineLength + 1
    }

    /// Opens the file; fails with a message for the user.
    func makeReader() throws(SightingStreamError) -> AsyncIterator {
        switch origin {
        case .resumed(let reader):
            return reader
        case .path(let path):
            if path == "-" {
                return AsyncIterator(descriptor: STDIN_FILENO, ownsDescriptor: false, limit: maximumLineLength, source: "<stdin>")
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw SightingStreamError(source: path, reason: "cannot open it: \(String(cString: strerror(errno)))")
            }
            return AsyncIterator(descriptor: descriptor, ownsDescriptor: true, limit: maximumLineLength, source: path)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        do {
            return try makeReader()
        } catch {
            return AsyncIterator(openFailure: error)
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        private let file: DescriptorBox?
        private let source: String
        /// The bytes read and not yet handed out, cut into lines: the framing loop every
        /// recording format shares.
        private var framing: FramingReader<SightingLineDecoder>
        private var openFailure: SightingStreamError?

        fileprivate init(descriptor: Int32, ownsDescriptor: Bool, limit: Int, source: String) {
            self.file = DescriptorBox(descriptor: descriptor, owned: ownsDescriptor)
            self.framing = FramingReader(decoder: SightingLineDecoder(limit: limit))
            self.source = source
        }

        fileprivate init(openFailure: SightingStreamError) {
            self.file = nil
            self.framing = FramingReader(decoder: SightingLineDecoder(limit: 1))
            self.source = openFailure.source
            self.openFailure = openFailure
        }

        public mutating func next() async throws -> [UInt8]? {
            if let openFailure {
                self.openFailure = nil
                framing.finish()
                throw openFailure
            }
            guard let file else { return nil }
            while true {
                if let line = framing.next() { return Array(line) }
                if framing.isFinished { return nil }
                try await fill(from: file)
            }
        }

        /// Hands the lines already buffered to `take`, one by one and exactly as `next()`
        /// would return them (the end of the input ends the last one), until `take` returns
        /// false or no whole line is left. Never reads: `fillBuffer()` does. This is the
        /// fast path for readers that decode a whole chunk of lines at once, in place.
        @inline(__always)
        mutating func takeBufferedLines(_ take: (UnsafeBufferPointer<UInt8>) -> Bool) {
            while let line = framing.next() {
                if !line.withUnsafeBufferPointer(take) { break }
            }
        }

        /// Whether every byte of the input has been read and handed out.
        var isDrained: Bool {
            openFailure == nil && (file == nil || framing.isFinished) && framing.unreadByteCount == 0
        }

        /// Reads the next chunk into the buffer, for `takeBufferedLines`; throws what `next()` would.
        mutating func fillBuffer() async throws {
            if let openFailure {
                self.openFailure = nil
                framing.finish()
                throw openFailure
            }
            guard let file else {
                framing.finish()
                return
            }
            try await fill(from: file)
        }

        /// The first `count` bytes not yet returned (fewer at the end of the input), without
        /// consuming them.
        mutating func peek(_ count: Int) async throws -> [UInt8] {
            if let openFailure { throw openFailure }
            guard let file else { return [] }
            while framing.unreadByteCount < count, !framing.isFinished {
                try await fill(from: file)
            }
            return Array(framing.unreadBytes.prefix(count))
        }

        /// Up to `count` bytes not returned yet: what is buffered, else the next chunk read;
        /// empty only at the end of the input. For binary formats read record by record.
        mutating func read(atMost count: Int) async throws -> [UInt8] {
            if let openFailure { throw openFailure }
            guard let file else { return [] }
            if framing.unreadByteCount == 0 && !framing.isFinished {
                try await fill(from: file)
            }
            return Array(framing.takeUnreadBytes(atMost: count))
        }

        /// Exactly `count` bytes, or fewer when the input ends first.
        mutating func read(exactly count: Int) async throws -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < count {
                let chunk = try await read(atMost: count - bytes.count)
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return bytes
        }

        private mutating func fill(from file: DescriptorBox) async throws {
            switch await file.readChunk() {
            case .cancelled:
                throw CancellationError()
            case .success(let chunk):
                if chunk.isEmpty {
                    framing.finish()
                } else {
                    framing.append(chunk)
                }
            case .failure(let reason):
                framing.finish()
                throw SightingStreamError(source: source, reason: "cannot read it: \(reason)")
            }
        }
    }
}

/// A file descriptor read on its own serial queue; closed when the last reference goes.
private final class DescriptorBox: Sendable {
    let descriptor: Int32
    let owned: Bool
    private let queue = DispatchQueue(label: "beaconctl.sighting-lines")
    static let chunkSize = 64 * 1024

    init(descriptor: Int32, owned: Bool) {
        self.descriptor = descriptor
        self.owned = owned
    }

    deinit {
        if owned { close(descriptor) }
    }

    enum ReadResult: Sendable {
        case success([UInt8])
        case failure(String)
        case cancelled
    }

    /// One chunk, read on this file's queue. Cancelling the calling task returns
    /// `.cancelled` at once: a read from a pipe whose writer stays silent cannot be
    /// interrupted, so it is abandoned (its bytes, if any ever come, are dropped) rather
    /// than waited for. The reader is finished after that.
    func readChunk() async -> ReadResult {
        let waiter = OneShotResult()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation) else { return }
                queue.async {
                    var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
                    while true {
                        let count = chunk.withUnsafeMutableBytes { read(self.descriptor, $0.baseAddress, $0.count) }
                        if count >= 0 {
                            chunk.removeLast(chunk.count - count)
                            waiter.resume(.success(chunk))
                            return
                        }
                        if errno == EINTR { continue }
                        waiter.resume(.failure(String(cString: strerror(errno))))
                        return
                    }
                }
            }
        } onCancel: {
            waiter.resume(.cancelled)
        }
    }
}

/// A continuation resumed once, by whichever comes first: the read's result or the task's
/// cancellation (which may come before the continuation exists).
private final class OneShotResult: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<DescriptorBox.ReadResult, Never>)
        case cancelled
        case done
    }

    private let state = Mutex<State>(.idle)

    /// Stores the continuation; false (and resumed with `.cancelled`) when cancellation came first.
    func install(_ continuation: CheckedContinuation<DescriptorBox.ReadResult, Never>) -> Bool {
        let alreadyCancelled = state.withLock { state -> Bool in
            if case .cancelled = state {
                state = .done
                return true
            }
            state = .waiting(continuation)
            return false
        }
        if alreadyCancelled { continuation.resume(returning: .cancelled) }
        return !alreadyCancelled
    }

    func resume(_ result: DescriptorBox.ReadResult) {
        let continuation = state.withLock { state -> CheckedContinuation<DescriptorBox.ReadResult, Never>? in
            switch state {
            case .waiting(let continuation):
                state = .done
                return continuation
            case .idle:
                // Cancelled before the continuation was installed: `install` resumes it.
                if case .cancelled = result { state = .cancelled }
                return nil
            case .cancelled, .done:
                return nil
            }
        }
        continuation?.resume(returning: result)
    }
}
