import BeaconCore
import HCI

/// Turns the controller's advertising reports into iBeacon sightings: every report of a
/// multi-report event, legacy (LE Advertising Report) and extended (LE Extended
/// Advertising Report, fragments put back together), with the iBeacon found anywhere among
/// the AD structures. Reports without an iBeacon are counted and otherwise ignored;
/// malformed ones are counted and described, never fatal. Telemetry frames (Eddystone-TLM,
/// KKM's system and sensor frames: `AdvertisedTelemetry`) become `TelemetryReading`s put into
/// `telemetry`, on the sightings' clock and receiver; they are looked for only in reports
/// without an iBeacon (and in extended data long enough to hold both), so an iBeacon report
/// costs nothing more for them.
///
/// Shared by the live scanner and the capture reader, so that a btsnoop file yields exactly
/// what scanning the same air would have.
public struct SightingExtractor: Sendable {
    /// Goes into every sighting's `receiver`.
    public var receiver: String
    /// Where the telemetry readings go, as they are found.
    public let telemetry: TelemetryInbox
    public internal(set) var counts = SightingExtractionCounts()
    private var assembler = SightingExtendedReportAssembler()

    public init(receiver: String, telemetry: TelemetryInbox = TelemetryInbox()) {
        self.receiver = receiver
        self.telemetry = telemetry
    }

    /// What one event held.
    public struct Extraction: Sendable, Equatable {
        public var sightings: [Sighting] = []
        /// One line per report that could not be read, for a debug log.
        public var problems: [String] = []
    }

    /// The sightings in `event`, stamped with `time`. Events other than advertising
    /// reports yield nothing.
    public mutating func extract(from event: HCIEvent, at time: Double) -> Extraction {
        var extraction = Extraction()
        guard case .le(let meta) = event else { return extraction }
        switch meta {
        case .advertisingReport(let reports):
            for report in reports {
                counts.reports += 1
                take(report.data, address: report.address, addressType: report.addressType,
                     rssi: report.rssi, time: time, into: &extraction)
            }
        case .extendedAdvertisingReport(let reports):
            for report in reports {
                counts.reports += 1
                switch assembler.add(report) {
                case .complete(let data):
                    take(data, address: report.address, addressType: report.addressType,
                         rssi: report.rssi, time: time, into: &extraction)
                case .pending:
                    counts.fragments += 1
                case .incomplete(let reason):
                    counts.incompleteData += 1
                    extraction.problems.append("extended report from \(report.address): \(reason)")
                }
            }
        default:
            break
        }
        return extraction
    }

    /// Counts an event that could not be decoded at all (a lying length, a report count
    /// beyond the data); its description goes to the caller's log.
    public mutating func noteMalformedEvent() {
        counts.malformedEvents += 1
    }

    mutating func take(
        _ data: [UInt8], address: BluetoothAddress, addressType: LEAddressType, rssi: Int8?, time: Double,
        into extraction: inout Extraction
    ) {
        let structures: [ADStructure]
        switch AdvertisingData.parse(data) {
        case .success(let parsed):
            structures = parsed
        case .failure(let error):
            counts.malformedData += 1
            extraction.problems.append("report from \(address): \(error)")
            return
        }
        guard let beacon = Self.firstIBeacon(in: structures) else {
            counts.otherReports += 1
            if let found = AdvertisedTelemetry(structures: structures) {
                note(found, address: address, addressIsRandom: Self.isRandom(addressType), time: time, into: &extraction)
            }
            return
        }
        counts.iBeaconReports += 1
        extraction.sightings.append(Sighting(
            advertisement: beacon, address: address,
            addressIsRandom: Self.isRandom(addressType), rssi: rssi.map(Int.init), time: time, clock: Self.clock, receiver: receiver))
        // Only extended data has room for a telemetry frame beside the iBeacon's 30 bytes.
        if data.count > Self.legacyDataLength, let found = AdvertisedTelemetry(structures: structures) {
            note(found, address: address, addressIsRandom: Self.isRandom(addressType), time: time, into: &extraction)
        }
    }

    /// Legacy advertising data holds at most 31 bytes (Core v5.4 Vol 6 Part B 2.3.1).
    static let legacyDataLength = 31

    /// Counts a telemetry frame and puts its reading, if it measured anything, in `telemetry`.
    mutating func note(
        _ found: AdvertisedTelemetry, address: BluetoothAddress, addressIsRandom: Bool, time: Double,
        into extraction: inout Extraction
    ) {
        if let problem = found.problem {
            counts.malformedTelemetry += 1
            extraction.problems.append("telemetry from \(address): \(problem)")
        } else if found.isEncrypted {
            counts.encryptedTelemetry += 1
        } else if let reading = found.reading(
            address: address, addressIsRandom: addressIsRandom, time: time, clock: Self.clock, receiver: receiver) {
            counts.telemetryReadings += 1
            telemetry.put(reading)
        }
    }

    /// The clock of every extracted sighting: a live scan's times count from its start, a
    /// capture's from its first record (`SightingCapture`), neither from the Unix epoch.
    static let clock = SightingClock.elapsed

    static func firstIBeacon(in structures: [ADStructure]) -> IBeaconAdvertisement? {
        for structure in structures where structure.type == ADStructure.manufacturerSpecificType {
            if let beacon = IBeaconAdvertisement(manufacturerData: structure.data) { return beacon }
        }
        return nil
    }

    /// Random static, random identity and unresolved resolvable addresses are random;
    /// public and public identity addresses are not (Core v5.4 Vol 4 Part E 7.7.65.2, .13).
    static func isRandom(_ type: LEAddressType) -> Bool {
        type == .random || type == .randomIdentity || type == .unresolvedResolvable
    }
}

/// What a `SightingExtractor` has seen so far.
public struct SightingExtractionCounts: Hashable, Sendable, CustomStringConvertible {
    /// Advertising reports read (legacy and extended, each fragment counted).
    public var reports = 0
    /// Reports carrying an iBeacon: one sighting each.
    public var iBeaconReports = 0
    /// Well-formed reports without an iBeacon (other beacons, phones, headphones…).
    public var otherReports = 0
    /// Extended fragments held until the rest of their data arrives.
    public var fragments = 0
    /// Reports whose AD structures run past the data (a lying length byte).
    public var malformedData = 0
    /// Extended data that never became whole (truncated by the controller, or too long).
    public var incompleteData = 0
    /// Events that could not be decoded at all.
    public var malformedEvents = 0
    /// Telemetry frames read into a `TelemetryReading` (battery or temperature measured).
    public var telemetryReadings = 0
    /// Encrypted Eddystone-TLM frames: unreadable without the beacon's key.
    public var encryptedTelemetry = 0
    /// Telemetry frames that do not follow their document (`AdvertisedTelemetry.problem`).
    public var malformedTelemetry = 0

    public init() {}

    public var description: String {
        "\(reports) reports: \(iBeaconReports) iBeacon, \(otherReports) other, \(fragments) fragments, "
            + "\(malformedData) malformed, \(incompleteData) incomplete; \(malformedEvents) undecodable events"
            + telemetryDescription
    }

    /// `; telemetry: 3 readings, 1 encrypted, 0 malformed`, or nothing when there was none.
    private var telemetryDescription: String {
        guard telemetryReadings + encryptedTelemetry + malformedTelemetry > 0 else { return "" }
        return "; telemetry: \(telemetryReadings) readings, \(encryptedTelemetry) encrypted, \(malformedTelemetry) malformed"
    }
}
