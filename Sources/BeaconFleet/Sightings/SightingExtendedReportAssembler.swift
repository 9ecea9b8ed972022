import BeaconCore
import HCI

/// Puts extended advertising data back together from the reports a controller splits it
/// into (Core v5.4 Vol 4 Part E 7.7.65.13: data status 01 "incomplete, more data to come"
/// on every fragment but the last, which says 00 "complete"; 10 "truncated" when the
/// controller gave up on the rest).
///
/// Fragments are matched on advertiser address, address type and advertising SID, so that
/// chains of different advertisers may interleave. Memory is bounded whatever the air
/// sends: a chain longer than the largest extended advertising data (1650 bytes, Core v5.4
/// Vol 4 Part E 7.8.57) is dropped, and so is the oldest chain when too many are open.
struct SightingExtendedReportAssembler: Sendable {
    /// The most advertising data one extended advertisement can carry.
    static let maximumDataLength = 1650
    /// Chains in progress at once; a scanner near many long advertisers needs few.
    static let maximumOpenChains = 16

    private struct ChainKey: Hashable, Sendable {
        var addressType: LEAddressType
        var address: BluetoothAddress
        var sid: UInt8?
    }

    private struct Chain: Sendable {
        var data: [UInt8]
        var startedAt: UInt64
    }

    private var chains: [ChainKey: Chain] = [:]
    private var nextChainNumber: UInt64 = 0

    /// What one report amounts to.
    enum Outcome: Equatable, Sendable {
        /// The whole data: a complete report, or the last fragment of a chain.
        case complete([UInt8])
        /// A fragment was kept; more should follow.
        case pending
        /// The data cannot be put together: the controller truncated it, or the chain grew
        /// beyond any legal advertisement.
        case incomplete(reason: String)
    }

    mutating func add(_ report: LEExtendedAdvertisingReport) -> Outcome {
        let key = ChainKey(addressType: report.addressType, address: report.address, sid: report.sid)
        switch report.eventType.dataStatus {
        case .complete:
            guard var chain = chains.removeValue(forKey: key) else { return .complete(report.data) }
            chain.data += report.data
            guard chain.data.count <= Self.maximumDataLength else {
                return .incomplete(reason: "reassembled data of \(chain.data.count) bytes exceeds the \(Self.maximumDataLength)-byte maximum")
            }
            return .complete(chain.data)
        case .incompleteMoreToCome:
            var chain = chains.removeValue(forKey: key) ?? Chain(data: [], startedAt: takeChainNumber())
            chain.data += report.data
            guard chain.data.count <= Self.maximumDataLength else {
                return .incomplete(reason: "fragments add up to more than \(Self.maximumDataLength) bytes; the chain was dropped")
            }
            if chains.count >= Self.maximumOpenChains, let oldest = chains.min(by: { $0.value.startedAt < $1.value.startedAt })?.key {
                chains[oldest] = nil
            }
            chains[key] = chain
            return .pending
        case .incompleteTruncated:
            chains[key] = nil
            return .incomplete(reason: "the controller truncated the data (data status 10)")
        case .reserved:
            chains[key] = nil
            return .incomplete(reason: "the report has the reserved data status 11")
        }
    }

    private mutating func takeChainNumber() -> UInt64 {
        defer { nextChainNumber &+= 1 }
        return nextChainNumber
    }
}
