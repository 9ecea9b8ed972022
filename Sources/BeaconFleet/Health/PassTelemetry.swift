import BeaconCore

/// The telemetry side of a one-shot verification pass (`VerificationEngine`): readings in,
/// each beacon's `BatteryReport` out. A reading is paired as soon as that is certain (by its
/// identity, or an address the manifest names); one from an address the pass has not yet
/// tied to a beacon is held until every identity is decided (the addresses each beacon was
/// heard from are final then) or the pass ends. Beacons the manifest expects telemetry from
/// keep the pass open until each has some, or the timeout.
struct PassTelemetry: Sendable {
    private let beacons: [ExpectedBeacon]
    private var builder: BatteryReportBuilder
    private var pairing: TelemetryPairing
    /// Whether `pairing` knows the addresses each beacon was heard from (every identity decided).
    private var pairingIsFinal = false
    /// Beacons expecting telemetry that have none yet.
    private(set) var awaiting: Set<Int>
    /// Readings from addresses not tied to a beacon yet, each with its pass time: the latest
    /// `BatteryJudge.window` per address, for at most `maximumHeldAddresses` addresses.
    private var held: [BluetoothAddress: [(reading: TelemetryReading, time: PassTime)]] = [:]
    private(set) var received = 0
    /// Readings no rule could pair (or beyond the bound on held addresses): counted only.
    private(set) var unpaired = 0

    /// Addresses whose readings wait for pairing: far more than the beacons a venue's air
    /// carries; beyond, readings from new addresses are counted unpaired.
    static let maximumHeldAddresses = 4096

    init(beacons: [ExpectedBeacon]) {
        self.beacons = beacons
        builder = BatteryReportBuilder(beacons: beacons)
        pairing = TelemetryPairing(beacons: beacons)
        awaiting = Set(beacons.indices.filter { beacons[$0].expectsTelemetry })
    }

    mutating func take(_ reading: TelemetryReading, at time: PassTime, identityIndex: (BeaconIdentity) -> Int?) {
        received += 1
        if let index = pairing.beacon(for: reading, identityIndex: identityIndex) {
            credit(reading, to: index, at: time)
            return
        }
        guard !pairingIsFinal, let address = reading.address else {
            unpaired += 1
            return
        }
        if held[address] == nil, held.count >= Self.maximumHeldAddresses {
            unpaired += 1
            return
        }
        held[address, default: []].append((reading, time))
        if let count = held[address]?.count, count > BatteryJudge.window {
            held[address]?.removeFirst(count - BatteryJudge.window)
            unpaired += count - BatteryJudge.window
        }
    }

    /// Ties the held readings to beacons by the addresses each was heard from (`verdicts`,
    /// in pass order), once no more will be learnt: every identity decided, or the end.
    mutating func settle(verdicts: [BeaconVerdict], identityIndex: (BeaconIdentity) -> Int?) {
        guard !pairingIsFinal else { return }
        // The heard addresses matter only to readings held or still awaited: a pass with
        // neither builds no table of a fleet's addresses.
        guard !held.isEmpty || !awaiting.isEmpty else { return }
        pairingIsFinal = true
        pairing = TelemetryPairing(beacons: beacons) { index in
            verdicts[index].observation.addresses.compactMap { BluetoothAddress($0.address) }
        }
        let waiting = held.values.joined().sorted { $0.time < $1.time }
        held = [:]
        for (reading, time) in waiting {
            if let index = pairing.beacon(for: reading, identityIndex: identityIndex) {
                credit(reading, to: index, at: time)
            } else {
                unpaired += 1
            }
        }
    }

    private mutating func credit(_ reading: TelemetryReading, to index: Int, at time: PassTime) {
        builder.take(reading, beacon: index, at: time)
        awaiting.remove(index)
    }

    /// The beacons whose verdicts carry a battery report.
    var reportedBeacons: [Int] { builder.reportedBeacons }

    func report(beacon index: Int, end: PassTime) -> BatteryReport? {
        builder.report(beacon: index, end: end)
    }
}
