import BeaconCore

/// Where the scenario part of a `virtual[:SCENARIO]` transport spec puts a controller.
///
/// ```
/// virtual                      the air "default", at (0, 0)
/// virtual:AIR                  the air AIR, at (0, 0)
/// virtual:AIR@X,Y              the air AIR, at (X, Y) metres
/// virtual:AIR/PLACE            the place PLACE of AIR: a point or a walk its scenario defined
/// virtual:AIR/PLACE@X,Y        the point (X, Y) of the plan PLACE (a venue)
/// virtual:@X,Y                 the air "default", at (X, Y)
/// virtual:AIR,battery-beacons=N   the air AIR, with N connectable KBeacons on it
/// virtual:AIR,eddystone-beacons=N,battery=40   N Eddystone configuration beacons at 40 %
/// ```
///
/// Options follow the scenario, each `,NAME=VALUE`, each at most once. `battery-beacons=N`
/// (1…64) puts N factory-fresh KBeacons on the air (once per air: the same spec opened again
/// adds none), the n-th at `06:BE:AC:BA:00:nn`, n metres east of the spec's point;
/// `eddystone-beacons=N` (1…64) N beacons with the Eddystone Configuration GATT Service, the
/// n-th at `06:BE:AC:BA:01:nn`, n metres east and one north; `battery=PERCENT` (0…100, with
/// either) the battery level they start with (100 without it). `beaconctl provision
/// --hardware` can write them (see docs/provisioning.md).
///
/// AIR is letters, digits, `-`, `_` and `.`. PLACE is the rest (it may contain `/`, as in
/// `cupertino/tour`). Every controller opened in one process on the same AIR shares its
/// radio: `beaconctl advertise --hci virtual` and a scan on `virtual` hear each other.
public struct VirtualControllerSpec: Hashable, Sendable, CustomStringConvertible {
    public static let defaultAirName = "default"

    public var airName: String
    public var placeName: String?
    public var point: PlanPoint?
    /// `battery-beacons=N`: how many KBeacons the air should have; `nil` when not asked.
    public var batteryBeacons: Int?
    /// `eddystone-beacons=N`: how many Eddystone configuration beacons; `nil` when not asked.
    public var eddystoneBeacons: Int?
    /// `battery=PERCENT`: the simulated beacons' battery level; `nil`: their default (100).
    public var batteryPercent: Int?

    /// The most battery beacons a spec may ask for.
    public static let maximumBatteryBeacons = 64

    public init(
        airName: String = VirtualControllerSpec.defaultAirName, placeName: String? = nil, point: PlanPoint? = nil,
        batteryBeacons: Int? = nil, eddystoneBeacons: Int? = nil, batteryPercent: Int? = nil
    ) {
        self.airName = airName
        self.placeName = placeName
        self.point = point
        self.batteryBeacons = batteryBeacons
        self.eddystoneBeacons = eddystoneBeacons
        self.batteryPercent = batteryPercent
    }

    /// Parses the part after `virtual:`; `nil` or empty means the default air at (0, 0).
    public init(parsing scenario: String?) throws(VirtualRadioError) {
        self.init()
        guard var text = scenario, !text.isEmpty else { return }
        // Options are the trailing comma-separated parts with "=" (coordinates have none).
        var parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var seen: Set<Substring> = []
        while let last = parts.last, last.contains("=") {
            let name = last.prefix { $0 != "=" }
            guard seen.insert(name).inserted else {
                throw VirtualRadioError("virtual:\(scenario ?? ""): the option \"\(name)\" is given twice; give it once")
            }
            try parseOption(last, in: scenario ?? "")
            parts.removeLast()
        }
        if batteryPercent != nil, batteryBeacons == nil, eddystoneBeacons == nil {
            throw VirtualRadioError(
                "virtual:\(scenario ?? ""): battery= sets the simulated beacons' level, and none is asked for; "
                    + "add battery-beacons=N or eddystone-beacons=N")
        }
        text = parts.joined(separator: ",")
        if let at = text.lastIndex(of: "@"), let point = Self.coordinates(text[text.index(after: at)...]) {
            self.point = point
            text = String(text[..<at])
        }
        let airPart: Substring
        if let slash = text.firstIndex(of: "/") {
            airPart = text[..<slash]
            let place = text[text.index(after: slash)...]
            guard !place.isEmpty else {
                throw VirtualRadioError("virtual:\(scenario ?? ""): name a place after \"/\", as in virtual:default/cupertino/tour")
            }
            placeName = String(place)
        } else {
            airPart = text[...]
        }
        if !airPart.isEmpty {
            guard airPart.allSatisfy(Self.isAirNameCharacter) else {
                throw VirtualRadioError(
                    "virtual:\(scenario ?? ""): \"\(airPart)\" is not an air name (letters, digits, \"-\", \"_\" and \".\"); "
                        + "write virtual:AIR, virtual:AIR@X,Y or virtual:AIR/PLACE")
            }
            airName = String(airPart)
        } else if placeName != nil {
            throw VirtualRadioError("virtual:\(scenario ?? ""): name the air before the place, as in virtual:default/\(placeName ?? "")")
        }
        // Otherwise only "@X,Y" was given: a point on the default air.
    }

    private mutating func parseOption(_ option: Substring, in scenario: String) throws(VirtualRadioError) {
        let name = option.prefix { $0 != "=" }
        let value = option.dropFirst(name.count + 1)
        switch name {
        case "battery-beacons", "eddystone-beacons":
            guard let count = Self.number(value), (1...Self.maximumBatteryBeacons).contains(count) else {
                throw VirtualRadioError(
                    "virtual:\(scenario): \(name) takes a count from 1 to \(Self.maximumBatteryBeacons), not \"\(value)\"")
            }
            if name == "battery-beacons" { batteryBeacons = count } else { eddystoneBeacons = count }
        case "battery":
            guard let percent = Self.number(value.hasSuffix("%") ? value.dropLast() : value), (0...100).contains(percent) else {
                throw VirtualRadioError("virtual:\(scenario): battery takes a percentage from 0 to 100, not \"\(value)\"")
            }
            batteryPercent = percent
        default:
            throw VirtualRadioError(
                "virtual:\(scenario): unknown option \"\(name)\"; the virtual radio knows battery-beacons=N (KBeacons), "
                    + "eddystone-beacons=N (Eddystone configuration beacons) and battery=PERCENT (as in virtual:default,eddystone-beacons=2,battery=40)")
        }
    }

    /// A count or percentage: ASCII digits only (no sign, no spaces), at most three of them.
    private static func number(_ text: Substring) -> Int? {
        guard (1...3).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func isAirNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-_.".contains(character))
    }

    /// `X,Y` as two finite decimal numbers.
    private static func coordinates(_ text: Substring) -> PlanPoint? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ part in part.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) } }),
            let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite
        else { return nil }
        return PlanPoint(x: x, y: y)
    }

    /// The scenario text, without the `virtual:` prefix.
    public var description: String {
        var text = airName
        if let placeName { text += "/\(placeName)" }
        if let point { text += "@\(NumberText.plain(point.x)),\(NumberText.plain(point.y))" }
        if let batteryBeacons { text += ",battery-beacons=\(batteryBeacons)" }
        if let eddystoneBeacons { text += ",eddystone-beacons=\(eddystoneBeacons)" }
        if let batteryPercent { text += ",battery=\(batteryPercent)" }
        return text
    }
}
