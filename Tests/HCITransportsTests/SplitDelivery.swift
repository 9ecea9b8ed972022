import HCI
import HCITestKit

/// Sends `packets` from a real peer in parts, cut after `cuts` bytes (inside a header,
/// inside a payload), and returns what the transport delivered.
///
/// Each part goes out only once the transport has delivered every packet that the parts
/// before it completed: it has read those bytes, so the cut packet's first bytes are
/// already with it while the rest is still unwritten. An event, not a pause, keeps the parts
/// apart, whatever the machine's load.
func deliverSplit(
    _ packets: [HCIPacket], cutAt cuts: [Int], from peer: H4TestPeer, to transport: any HCITransport
) async throws -> [HCIPacket] {
    let bytes = packets.flatMap(\.h4Bytes)
    let packetEnds = packets.reduce(into: [Int]()) { ends, packet in ends.append((ends.last ?? 0) + packet.h4Bytes.count) }
    var iterator = transport.incoming.makeAsyncIterator()
    var received: [HCIPacket] = []
    var start = 0
    for end in cuts + [bytes.count] {
        try peer.write(Array(bytes[start..<end]))
        start = end
        let complete = packetEnds.filter { $0 <= end }.count
        while received.count < complete {
            guard let packet = try await iterator.next() else { return received }
            received.append(packet)
        }
    }
    return received
}
