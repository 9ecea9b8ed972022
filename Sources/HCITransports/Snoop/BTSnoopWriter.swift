import BeaconCore
import HCI
import Synchronization

/// Writes HCI traffic to a btsnoop file (version 1, datalink 1002 "HCI UART", i.e. each
/// record is the H4 indicator followed by the packet), which btmon (`btmon -r`) and
/// Wireshark open.
///
/// Each record is written with one `write` as it arrives, so a capture stays readable up
/// to the last packet if the process dies. Safe to use from several tasks.
public final class BTSnoopWriter: Sendable {
    public let path: String
    private let clock: @Sendable () -> Int64
    private let descriptor: Mutex<Int32?>

    /// Creates or truncates `path` and writes the file header. `clock` returns
    /// microseconds since the Unix epoch (the real-time clock by default).
    public init(path: String, clock: @escaping @Sendable () -> Int64 = BTSnoopWriter.systemClock) throws(BTSnoopError) {
        let descriptor = try BTSnoopFileIO.create(path)
        do {
            try BTSnoopFileIO.writeAll(Self.fileHeader(), to: descriptor, path: path)
        } catch {
            BTSnoopFileIO.close(descriptor)
            throw error
        }
        self.path = path
        self.clock = clock
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        close()
    }

    /// Microseconds since the Unix epoch from the system's real-time clock.
    public static let systemClock: @Sendable () -> Int64 = { WallClock.unixMicroseconds() }

    /// Appends one packet, time-stamped now.
    public func write(_ packet: HCIPacket, direction: BTSnoopDirection) throws(BTSnoopError) {
        let result: Result<Void, BTSnoopError> = descriptor.withLock { descriptor in
            guard let descriptor else {
                return .failure(.fileSystem(path: path, operation: "write to capture file", reason: "it was closed"))
            }
            // Stamped under the lock, so that timestamps never go backwards in the file.
            let record = BTSnoopRecord(packet: packet, direction: direction, unixMicroseconds: clock())
            do throws(BTSnoopError) {
                try BTSnoopFileIO.writeAll(Self.encode(record), to: descriptor, path: path)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Closes the file. Idempotent; later writes fail.
    public func close() {
        descriptor.withLock { descriptor in
            if let open = descriptor {
                BTSnoopFileIO.close(open)
                descriptor = nil
            }
        }
    }

    /// The 16-byte header of an H4 capture: magic, version 1, datalink 1002, big-endian.
    public static func fileHeader(datalink: BTSnoopDatalink = .hciUART) -> [UInt8] {
        var bytes = BTSnoopFormat.magic
        bytes.appendBigEndian(BTSnoopFormat.version)
        bytes.appendBigEndian(datalink.rawValue)
        return bytes
    }

    /// One H4 record: header (lengths, flags, drops, timestamp; big-endian) and the packet
    /// with its indicator. Flags as Android and BlueZ write them: bit 0 set when received,
    /// bit 1 set for commands and events.
    public static func encode(_ record: BTSnoopRecord) -> [UInt8] {
        let data = record.packet.h4Bytes
        var flags: UInt32 = record.direction == .controllerToHost ? BTSnoopFormat.receivedFlag : 0
        if record.packet.type == .command || record.packet.type == .event {
            flags |= BTSnoopFormat.commandOrEventFlag
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(BTSnoopFormat.recordHeaderLength + data.count)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: max(record.originalLength, data.count)))
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: data.count))
        bytes.appendBigEndian(flags)
        bytes.appendBigEndian(record.cumulativeDrops)
        bytes.appendBigEndian(record.unixMicroseconds &+ BTSnoopFormat.unixEpochOffset)
        bytes += data
        return bytes
    }
}

extension Array where Element == UInt8 {
    /// Appends an integer most significant byte first, the btsnoop byte order.
    mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        for index in stride(from: Value.bitWidth / 8 - 1, through: 0, by: -1) {
            append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}
