import BeaconCore
import Foundation

/// The JSON messages a KBeacon answers once a central authenticated, as KKM's SDK sends
/// them (KBCfgHandler.java, KBCfgPackage/*.java): `{"msg":"getPara","type":N}` reads (bit 0
/// the common parameters, bit 1 the slots in `advObj`); `{"msg":"cfg",…}` writes `meaPwr`,
/// `pwd` and slots of `advObj` (`slot`, `type`, `uuid`, `majorID`, `minorID`, `txPwr`, `advPrd`).
enum KBeaconMessages {
    /// The causes a beacon acknowledges a message with (the `cause` of its 0x2_ frames).
    enum Cause: UInt16 {
        case done = 0x00
        case notAuthenticated = 0x01
        case valueRefused = 0x02
        case notUnderstood = 0x03
        case sendFromOffset = 0x04
        case answerFollows = 0x05
    }

    /// What a whole message leads to: an answer to send back, or a cause for the acknowledgement.
    enum Outcome: Equatable {
        case answer([UInt8])
        case acknowledged(Cause)
    }

    /// Handles one whole message against `state` (changed only when a write is accepted whole).
    static func handle(_ message: [UInt8], state: inout KBeaconState) -> Outcome {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message)), let top = object as? [String: Any],
            let kind = top["msg"] as? String
        else { return .acknowledged(.notUnderstood) }
        switch kind {
        case "getPara":
            guard let type = integer(top["type"]) else { return .acknowledged(.notUnderstood) }
            return answer(type: type, state: state).map(Outcome.answer) ?? .acknowledged(.notUnderstood)
        case "cfg":
            return .acknowledged(configure(top, state: &state))
        default:
            return .acknowledged(.notUnderstood)
        }
    }

    /// The getPara answer: compact JSON, keys sorted.
    static func answer(type: Int, state: KBeaconState) -> [UInt8]? {
        var reply: [String: Any] = [:]
        if type & 0x1 != 0 {
            reply["model"] = state.model
            reply["ver"] = state.firmware
            reply["hver"] = "1.0"
            reply["btPt"] = state.batteryPercent
            reply["meaPwr"] = state.measuredPower
            reply["minPwr"] = state.minimumTxPower
            reply["maxPwr"] = state.maximumTxPower
            reply["maxPrd"] = state.maximumInterval
            reply["maxSlot"] = 5
        }
        if type & 0x2 != 0 {
            reply["advObj"] = state.slots.map { slot -> [String: Any] in
                var entry: [String: Any] = ["slot": slot.index, "type": slot.type, "txPwr": slot.txPower, "advPrd": slot.interval, "conn": 1]
                if let uuid = slot.uuid { entry["uuid"] = "\(uuid)" }
                if let major = slot.major { entry["majorID"] = Int(major) }
                if let minor = slot.minor { entry["minorID"] = Int(minor) }
                return entry
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys]) else { return nil }
        return Array(data)
    }

    /// A cfg message: every value checked against the model's limits first, then all
    /// applied, or none (cause 2).
    static func configure(_ top: [String: Any], state: inout KBeaconState) -> Cause {
        var next = state
        if let value = top["meaPwr"] {
            guard let power = integer(value), (-80...0).contains(power) else { return .valueRefused }
            next.measuredPower = power
        }
        if let value = top["pwd"] {
            guard let password = value as? String, (8...16).contains(password.utf8.count) else { return .valueRefused }
            next.password = password
        }
        if let value = top["advObj"] {
            guard let entries = value as? [Any] else { return .valueRefused }
            for case let entry as [String: Any] in entries {
                guard let index = integer(entry["slot"]), (0..<5).contains(index) else { return .valueRefused }
                var slot = next.slots.first { $0.index == index } ?? KBeaconState.Slot(index: index, type: 0, txPower: 0, interval: 1000)
                if let type = entry["type"] {
                    guard let type = integer(type) else { return .valueRefused }
                    slot.type = type
                }
                if let power = entry["txPwr"] {
                    guard let power = integer(power), (next.minimumTxPower...next.maximumTxPower).contains(power) else { return .valueRefused }
                    slot.txPower = power
                }
                if let interval = entry["advPrd"] {
                    guard let interval = number(interval), (100...next.maximumInterval).contains(interval) else { return .valueRefused }
                    slot.interval = interval
                }
                if let uuid = entry["uuid"] {
                    guard let text = uuid as? String, let parsed = try? ProximityUUID(parsing: text) else { return .valueRefused }
                    slot.uuid = parsed
                }
                if let major = entry["majorID"] {
                    guard let value = integer(major), let part = UInt16(exactly: value) else { return .valueRefused }
                    slot.major = part
                }
                if let minor = entry["minorID"] {
                    guard let value = integer(minor), let part = UInt16(exactly: value) else { return .valueRefused }
                    slot.minor = part
                }
                next.slots.removeAll { $0.index == index }
                next.slots.append(slot)
                next.slots.sort { $0.index < $1.index }
            }
        }
        state = next
        return .done
    }

    /// A JSON number that is a whole number within Int.
    private static func integer(_ value: Any?) -> Int? {
        guard let double = number(value), double == double.rounded(), let whole = Int(exactly: double) else { return nil }
        return whole
    }

    /// A JSON number, finite.
    private static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, number.doubleValue.isFinite else { return nil }
        return number.doubleValue
    }
}
