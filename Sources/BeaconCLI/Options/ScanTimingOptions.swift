import ArgumentParser
import BeaconFleet
import HCI

/// `scan --family`, `--interval` and `--window`: how a live scan drives its controller,
/// checked, and turned into what adjusts its configuration (`LiveScan.with`'s `configure`).
struct ScanTimingOptions: ParsableArguments {
    enum Family: String, CaseIterable, ExpressibleByArgument {
        case auto, legacy, extended

        var choice: ScanFamilyChoice {
            switch self {
            case .auto: return .auto
            case .legacy: return .legacy
            case .extended: return .extended
            }
        }
    }

    @Option(help: "Scanning commands: auto (extended when the controller has LE feature bit 12), legacy or extended.")
    var family: Family = .auto

    @Option(help: ArgumentHelp("Scan interval in milliseconds (2.5 to 10240).", valueName: "ms"))
    var interval: Double?

    @Option(help: ArgumentHelp("Scan window in milliseconds, at most the interval (default: the interval).", valueName: "ms"))
    var window: Double?

    init() {}

    /// The flags given that only a controller takes, for a refusal beside --input.
    var givenFlags: [String] {
        [family != .auto ? "--family" : nil, interval.map { _ in "--interval" }, window.map { _ in "--window" }].compactMap { $0 }
    }

    /// The adjustment of the scan (`receiver` renames its sightings), or a `ValidationError`
    /// naming the flag whose value is out of range.
    func configure(receiver: String? = nil) throws -> @Sendable (inout ScanConfiguration) -> Void {
        let interval = try Self.parse(self.interval, "--interval")
        let window = try Self.parse(self.window, "--window")
        let effectiveInterval = interval ?? (try? ScanInterval(milliseconds: ScanConfiguration.defaultMilliseconds))
        if let window, let effectiveInterval, window > effectiveInterval {
            throw ValidationError("--window (\(window)) must not be longer than the scan interval (\(effectiveInterval)).")
        }
        let family = self.family.choice
        return { configuration in
            configuration.family = family
            configuration.interval = interval
            configuration.window = window
            if let receiver { configuration.receiver = receiver }
        }
    }

    private static func parse(_ milliseconds: Double?, _ name: String) throws -> ScanInterval? {
        guard let milliseconds else { return nil }
        guard let value = try? ScanInterval(milliseconds: milliseconds), value.isLegacyCompatible else {
            throw ValidationError("\(name) must be between 2.5 and 10240 ms; got \(milliseconds).")
        }
        return value
    }
}
