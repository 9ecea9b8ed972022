import ArgumentParser
import BeaconCore
import BeaconFleet
import Foundation

/// The `fleet plan` options that need parsing beyond ArgumentParser's: zone and beacon
/// lists, the plan size, the UUID. Each problem is a usage error naming the value.
extension FleetPlanCommand {
    /// `--zones` and `--beacons` as groups, in the order given.
    func groups() throws -> [AllocationRequest.Group] {
        var groups: [AllocationRequest.Group] = []
        for item in Self.list(zones) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let zone = String(parts[0]).trimmingCharacters(in: .whitespaces)
            guard !zone.isEmpty else { throw ValidationError("--zones has an empty zone name in `\(item)`.") }
            var count = beaconsPerZone
            if parts.count == 2 {
                guard let value = Int(parts[1]), value >= 1, value <= 10_000 else {
                    throw ValidationError("--zones: `\(item)` needs a count of 1…10000 after `=`, e.g. `register=2`.")
                }
                count = value
            }
            groups.append(.init(zone: zone, count: count))
        }
        for item in Self.list(beacons) {
            let parts = item.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let id = String(parts[0]).trimmingCharacters(in: .whitespaces)
            let zone = parts.count == 2 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : nil
            guard !id.isEmpty, zone?.isEmpty != true else {
                throw ValidationError("--beacons: `\(item)` needs an id, and a zone after `@` when there is one.")
            }
            // Consecutive beacons of one zone share a group: their minors stay together.
            if let last = groups.last, last.zone == zone, let ids = last.beaconIDs {
                groups[groups.count - 1] = .init(zone: zone, beaconIDs: ids + [id])
            } else {
                groups.append(.init(zone: zone, beaconIDs: [id]))
            }
        }
        return groups
    }

    private static func list(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func planSize() throws -> PlanSize? {
        guard let plan else { return nil }
        let parts = plan.lowercased().split(whereSeparator: { $0 == "x" || $0 == "×" })
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
            width.isFinite, height.isFinite, width > 0, height > 0
        else {
            throw ValidationError("--plan takes WIDTHxHEIGHT in metres, both above 0, e.g. `24x16`; got `\(plan)`.")
        }
        return PlanSize(width: width, height: height)
    }

    func proximityUUID() throws -> ProximityUUID? {
        guard let uuid else { return nil }
        do {
            return try ProximityUUID(parsing: uuid)
        } catch {
            throw ValidationError("--uuid `\(uuid)` is not a UUID: \(error); write 8-4-4-4-12 hex digits, e.g. from `uuidgen`.")
        }
    }
}

extension AllocationRequest.MajorScheme: ExpressibleByArgument {}
