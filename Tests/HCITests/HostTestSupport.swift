import ClockTestKit
import HCITestKit
import Synchronization
@testable import HCI

/// Counts what the host hands to the transport, to see whether a command went out.
final class CountingTransport: HCITransport {
    let inner: any HCITransport
    private let count = Mutex(0)

    init(_ inner: any HCITransport) {
        self.inner = inner
    }

    var name: String { inner.name }
    var incoming: AsyncThrowingStream<HCIPacket, any Error> { inner.incoming }
    var sentCount: Int { count.withLock { $0 } }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        count.withLock { $0 += 1 }
        try await inner.send(packet)
    }

    func close() async {
        await inner.close()
    }
}

/// A command answered by Command Status, like LE Create Connection; used to test that path.
struct StatusAnsweredCommand: HCICommand, Hashable {
    typealias ReturnParameters = Void
    static let opcode = HCIOpcode(rawValue: 0x200D)
    static var completion: HCICommandCompletion { .commandStatus }

    func encodeParameters(into bytes: inout [UInt8]) {}

    static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> StatusAnsweredCommand {
        StatusAnsweredCommand()
    }
}

/// A command whose parameters cannot fit in one packet.
struct OversizedCommand: HCICommand {
    typealias ReturnParameters = Void
    static let opcode = HCIOpcode(rawValue: 0xFC00)

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes += Array(repeating: 0, count: 300)
    }

    static func decodeParameters(_ bytes: ArraySlice<UInt8>) throws(HCIDecodingError) -> OversizedCommand {
        OversizedCommand()
    }
}

/// Reads `count` elements from a subscriber's stream.
func collect(_ count: Int, from stream: AsyncStream<HostControllerEvent>) async -> [HostControllerEvent] {
    var result: [HostControllerEvent] = []
    for await element in stream {
        result.append(element)
        if result.count == count { break }
    }
    return result
}

/// Grants the host `credits` from the scripted controller and returns once the host has
/// taken them. The host counts a Command Complete's credits before it hands the event to
/// its subscribers, so the event reaching a subscriber is the moment to wait for: no polling.
func grant(_ credits: UInt8, to host: HostController, from script: ScriptedController) async throws {
    let events = await host.events()
    let seen = RecordedLog<HostControllerEvent>()
    let listener = Task {
        for await event in events { seen.append(event) }
    }
    defer { listener.cancel() }
    try await script.grantCredits(credits)
    try await seen.wait(for: "the host taking \(credits) command credits") { events in
        events.contains { event in
            guard case .event(.commandComplete(let complete)) = event else { return false }
            return complete.opcode == .nop && complete.numHCICommandPackets == credits
        }
    }
}
