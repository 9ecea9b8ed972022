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
/// virtual:AIR,battery-beacons=N   the air AIR, with N connectable battery beacons on it
/// ```
///
/// Options follow the scenario, each `,NAME=VALUE`. `battery-beacons=N` (1…64) puts N
/// factory-fresh KBeacons on the air (once per air: the same spec opened again adds none),
/// the n-th at `06:BE:AC:BA:00:nn`, n metres east of the spec's point: `beaconctl provision
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
    /// `battery-beacons=N`: how many battery beacons the air should have; `nil` when not asked.
    public var batteryBeacons: Int?

    /// The most battery beacons a spec may ask for.
    public static let maximumBatteryBeacons = 64

    public init(
        airName: String = VirtualControllerSpec.defaultAirName, placeName: String? = nil, point: PlanPoint? = nil,
        batteryBeacons: Int? = nil
    ) {
        self.airName = airName
        self.placeName = placeName
        self.point = point
        self.batteryBeacons = batteryBeacons
    }

    /// Parses the part after `virtual:`; `nil` or empty means the default air at (0, 0).
    public init(parsing scenario: String?) throws(VirtualRadioError) {
        self.init()
        guard var text = scenario, !text.isEmpty else { return }
        // Options are the trailing comma-separated parts with "=" (coordinates have none).
        var parts = text.split(separator: ",", omittingEmptySubsequences: false)
        while let last = parts.last, last.contains("=") {
            try parseOption(last, in: scenario ?? "")
            parts.removeLast()
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
        case "battery-beacons":
            guard let count = Int(value), (1...Self.maximumBatteryBeacons).contains(count) else {
                throw VirtualRadioError(
                    "virtual:\(scenario): battery-beacons takes a count from 1 to \(Self.maximumBatteryBeacons), not \"\(value)\"")
            }
            batteryBeacons = count
        default:
            throw VirtualRadioError(
                "virtual:\(scenario): unknown option \"\(name)\"; the virtual radio knows battery-beacons=N (as in virtual:default,battery-beacons=3)")
        }
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
        return text
    }
}
