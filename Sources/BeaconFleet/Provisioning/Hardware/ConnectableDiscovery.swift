import BeaconCore
import BeaconProfiles
import HCI
import Logging

/// A peripheral heard during the discovery scan.
public struct DiscoveredPeripheral: Hashable, Sendable {
    public var address: BluetoothAddress
    public var addressType: LEAddressType
    /// Whether any of its advertisements invited a connection (ADV_IND, or an extended
    /// report with the connectable bit).
    public var connectable: Bool
    /// The strongest RSSI heard, dBm (for `--assign nearest`; `nil` when the controller gave none).
    public var strongestRSSI: Int?
    /// Every AD structure heard from it (advertisements and scan responses).
    public var structures: [ADStructure]

    public init(
        address: BluetoothAddress, addressType: LEAddressType, connectable: Bool, strongestRSSI: Int?, structures: [ADStructure]
    ) {
        self.address = address
        self.addressType = addressType
        self.connectable = connectable
        self.strongestRSSI = strongestRSSI
        self.structures = structures
    }

    /// The profile its advertisement names, when one does (KKM's data, the Eddystone
    /// configuration service).
    public var advertisedProfile: HardwareProfileChoice? {
        advertisedProfile(among: ShippedProfiles.all)
    }

    /// The same, with `declarative` profiles' recognitions considered after beaconctl's own;
    /// `nil` also when several declarative ones match (connecting tells them apart, or the
    /// user names one).
    public func advertisedProfile(among declarative: [ProfileDefinition]) -> HardwareProfileChoice? {
        if KBeaconProfile.recognises(advertising: structures) { return .kbeacon }
        if EddystoneGATTProfile.recognises(advertising: structures) { return .eddystoneGATT }
        let recognised = ShippedProfiles.recognised(structures, among: declarative)
        return recognised.count == 1 ? recognised.first.map { .declarative($0) } : nil
    }

    /// The iBeacon identity it advertises, if any.
    public var advertisedIdentity: BeaconIdentity? {
        structures.lazy.filter { $0.type == ADStructure.manufacturerSpecificType }
            .compactMap { IBeaconAdvertisement(manufacturerData: $0.data)?.identity }.first
    }

    /// Folds one report into what is known of this peripheral.
    mutating func note(connectable: Bool, rssi: Int?, structures more: [ADStructure]) {
        self.connectable = self.connectable || connectable
        if let rssi { strongestRSSI = max(strongestRSSI ?? rssi, rssi) }
        // Bounded: a peripheral cannot grow this beyond its distinct structures, at most 64.
        for structure in more where !structures.contains(structure) && structures.count < 64 {
            structures.append(structure)
        }
    }
}

/// Scans for `window` and returns every peripheral heard, connectable or not. The scan runs
/// on the caller's controller (the one the central then connects from) and is disabled
/// before returning.
///
/// With `until`, the scan ends as soon as every address in it was heard connectably: the
/// window is then a limit, not a wait, when every beacon has its `mac:`. (Not also until its
/// advertisement names a profile: a passive scan never hears a scan response, where a beacon
/// advertising an iBeacon frame keeps its vendor data; the profile is then found on the
/// connection.)
enum ConnectableDiscovery {
    /// At most this many peripherals are kept (a crowded hall cannot grow memory without end).
    static let peripheralLimit = 4096

    /// `noted` sees each peripheral as a report updates it (tests wait on it).
    static func run(
        host: HostController, configuration: ScanConfiguration, window: Duration, clock: any Clock<Duration>, logger: Logger,
        until wanted: Set<BluetoothAddress> = [],
        noted: @escaping @Sendable (DiscoveredPeripheral) -> Void = { _ in }
    ) async throws(ScanError) -> [DiscoveredPeripheral] {
        let events = await host.events(bufferSize: 4096)
        let commands = ScanCommands(host: host, configuration: configuration, logger: logger)
        try await commands.prepare()
        let family = try await commands.chooseFamily()
        try await commands.startScanning(family)
        let collected = await withTaskGroup(of: [BluetoothAddress: DiscoveredPeripheral]?.self) { group in
            group.addTask {
                var heard: [BluetoothAddress: DiscoveredPeripheral] = [:]
                var pending = wanted
                func found(_ peripheral: DiscoveredPeripheral) -> Bool {
                    if peripheral.connectable { pending.remove(peripheral.address) }
                    return !wanted.isEmpty && pending.isEmpty
                }
                listening: for await element in events {
                    guard case .event(.le(let meta)) = element else {
                        if case .transportEnded = element { break listening }
                        continue
                    }
                    for report in reports(in: meta) {
                        let structures = (try? AdvertisingData.parse(report.data).get()) ?? []
                        if var known = heard[report.address] {
                            known.note(connectable: report.connectable, rssi: report.rssi, structures: structures)
                            heard[report.address] = known
                            noted(known)
                            if found(known) { break listening }
                        } else if heard.count < peripheralLimit {
                            var fresh = DiscoveredPeripheral(
                                address: report.address, addressType: report.addressType, connectable: false, strongestRSSI: nil,
                                structures: [])
                            fresh.note(connectable: report.connectable, rssi: report.rssi, structures: structures)
                            heard[report.address] = fresh
                            noted(fresh)
                            if found(fresh) { break listening }
                        }
                    }
                }
                return heard
            }
            group.addTask {
                try? await clock.sleep(for: window)
                return nil
            }
            // The window's end (or cancellation) ends the listening task: its stream
            // iteration returns once cancelled.
            var result: [BluetoothAddress: DiscoveredPeripheral] = [:]
            if let first = await group.next(), let heard = first { result = heard }
            group.cancelAll()
            while let next = await group.next() {
                if let heard = next { result = heard }
            }
            return result
        }
        try? await commands.stopScanning(family)
        return collected.values.sorted { ($0.strongestRSSI ?? -128, $1.address.description) > ($1.strongestRSSI ?? -128, $0.address.description) }
    }

    private struct Report {
        var address: BluetoothAddress
        var addressType: LEAddressType
        var connectable: Bool
        var rssi: Int?
        var data: [UInt8]
    }

    private static func reports(in meta: LEMetaEvent) -> [Report] {
        switch meta {
        case .advertisingReport(let reports):
            // A scan response carries no connectability of its own: it adds data only.
            return reports.map {
                Report(
                    address: $0.address, addressType: $0.addressType,
                    connectable: $0.eventType == .advInd || $0.eventType == .advDirectInd, rssi: $0.rssi.map(Int.init), data: $0.data)
            }
        case .extendedAdvertisingReport(let reports):
            return reports.map {
                Report(
                    address: $0.address, addressType: $0.addressType,
                    connectable: $0.eventType.isConnectable && !$0.eventType.isScanResponse, rssi: $0.rssi.map(Int.init), data: $0.data)
            }
        default:
            return []
        }
    }
}
