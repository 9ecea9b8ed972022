import BeaconCore
import Foundation

/// KBeacon's JSON configuration messages, with the keys of the vendor's SDK
/// (kkmhogen/android_kbeaconlib2, kbeaconlib2/src/main/java/com/kkmcn/kbeaconlib2/KBCfgPackage/:
/// KBCfgBase.java `msg`, `cfg`, `getPara`, `type`; KBCfgType.java 1 common, 2 advertising;
/// KBCfgCommon.java `model`, `ver`, `btPt`, `meaPwr` (−80…0), `minPwr`, `maxPwr`, `maxPrd`,
/// `pwd`; KBCfgAdvBase.java `slot`, `type`, `txPwr` (−40…8), `advPrd` (100…40000 ms);
/// KBCfgAdvIBeacon.java `uuid`, `majorID`, `minorID`, advertising type 5;
/// KBCfgHandler.java: slots in the array `advObj`, and a write is `"msg":"cfg"`).
package struct KBeaconConfiguration: Equatable, Sendable {
    package struct Slot: Equatable, Sendable {
        package var index: Int
        /// KBAdvType.java: 5 iBeacon, 0 none, 2 Eddystone-UID, …
        package var type: Int
        var txPower: Int?
        var interval: Double?
        var uuid: ProximityUUID?
        var major: UInt16?
        var minor: UInt16?
    }

    package static let iBeaconType = 5
    static let measuredPowerRange = -80...0
    static let defaultTxPowerRange = -40...8
    static let intervalRange = 100...40000

    var model: String?
    var firmware: String?
    var batteryPercent: Int?
    var measuredPower: Int?
    var minimumTxPower: Int?
    var maximumTxPower: Int?
    var maximumInterval: Double?
    var slots: [Slot] = []

    /// The slot that advertises iBeacon (the lowest), else `nil`.
    package var iBeaconSlot: Slot? { slots.filter { $0.type == Self.iBeaconType }.min { $0.index < $1.index } }

    /// What a reading shows: the iBeacon slot's identity, transmit power and interval, and
    /// the measured power the beacon puts in its frames.
    package var reading: BeaconReading {
        let slot = iBeaconSlot
        let settings = BeaconSettings(
            uuid: slot?.uuid, major: slot?.major, minor: slot?.minor, measuredPower: measuredPower, txPower: slot?.txPower,
            advertisingInterval: slot?.interval.flatMap { Int(checked: $0) })
        return BeaconReading(settings: settings, model: model, firmware: firmware, batteryPercent: batteryPercent)
    }

    /// The request for the common and advertising parameters (`readCommonConfig`,
    /// `readSlotConfig`, combined as the SDK's first read combines them).
    static let readRequest: [UInt8] = Array(#"{"msg":"getPara","type":3}"#.utf8)

    /// Decodes the beacon's answer to `readRequest`. Unknown keys are ignored (the firmware
    /// adds keys for its sensors); known keys of the wrong kind are malformed.
    package init(json: [UInt8]) throws(KBeaconConfigurationError) {
        guard json.count <= KBeaconFrame.maximumMessageLength else { throw .tooLong(json.count) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw .notJSON
        }
        guard let top = object as? [String: Any] else { throw .notAnObject }
        model = try Self.string(top, "model")
        firmware = try Self.string(top, "ver")
        batteryPercent = try Self.integer(top, "btPt")
        measuredPower = try Self.integer(top, "meaPwr")
        minimumTxPower = try Self.integer(top, "minPwr")
        maximumTxPower = try Self.integer(top, "maxPwr")
        maximumInterval = try Self.number(top, "maxPrd")
        if let minimumTxPower, let maximumTxPower, minimumTxPower > maximumTxPower {
            throw .invalid(key: "minPwr", why: "\(minimumTxPower) dBm is above maxPwr, \(maximumTxPower) dBm")
        }
        if let array = top["advObj"] {
            guard let entries = array as? [Any] else { throw .wrongKind(key: "advObj", expected: "an array") }
            for entry in entries {
                guard let slot = entry as? [String: Any] else { throw .wrongKind(key: "advObj", expected: "an array of objects") }
                // KBCfgHandler.updateDeviceCfgAdvObjFromParas: a slot without both is skipped.
                guard let index = try Self.integer(slot, "slot"), let type = try Self.integer(slot, "type") else { continue }
                var uuid: ProximityUUID?
                if let text = try Self.string(slot, "uuid") {
                    do {
                        uuid = try ProximityUUID(parsing: text)
                    } catch {
                        throw .invalid(key: "uuid", why: "\(error)")
                    }
                }
                slots.append(
                    Slot(
                        index: index, type: type, txPower: try Self.integer(slot, "txPwr"), interval: try Self.number(slot, "advPrd"),
                        uuid: uuid, major: try Self.identifierPart(slot, "majorID"), minor: try Self.identifierPart(slot, "minorID")))
            }
        }
    }

    init() {}

    // MARK: Writing

    /// A `cfg` message that writes `fields` of `target`: `meaPwr` at the top, the slot's
    /// fields in `advObj` with its `slot` and `type` (the SDK sends both with every slot).
    /// The iBeacon slot when there is one; otherwise slot 0 becomes iBeacon, which needs the
    /// whole identity.
    package func writeMessage(_ fields: [BeaconField], of target: BeaconSettings) throws(KBeaconConfigurationError) -> [UInt8] {
        var top: [String: Any] = ["msg": "cfg"]
        var slot: [String: Any] = [:]
        for field in fields {
            switch field {
            case .measuredPower:
                guard let value = target.measuredPower else { continue }
                guard Self.measuredPowerRange.contains(value) else {
                    throw .outOfRange(field, "\(value) dBm is outside the KBeacon's −80…0 dBm")
                }
                top["meaPwr"] = value
            case .txPower:
                guard let value = target.txPower else { continue }
                let lower = minimumTxPower ?? Self.defaultTxPowerRange.lowerBound
                let upper = maximumTxPower ?? Self.defaultTxPowerRange.upperBound
                guard value >= lower, value <= upper else {
                    throw .outOfRange(field, "\(value) dBm is outside this beacon's \(lower)…\(upper) dBm")
                }
                slot["txPwr"] = value
            case .advertisingInterval:
                guard let value = target.advertisingInterval else { continue }
                let upper = maximumInterval.flatMap { Int(checked: $0, rounding: .down) } ?? Self.intervalRange.upperBound
                guard value >= Self.intervalRange.lowerBound, value <= upper else {
                    throw .outOfRange(field, "\(value) ms is outside this beacon's \(Self.intervalRange.lowerBound)…\(upper) ms")
                }
                slot["advPrd"] = value
            case .uuid:
                guard let value = target.uuid else { continue }
                slot["uuid"] = "\(value)"
            case .major:
                guard let value = target.major else { continue }
                slot["majorID"] = Int(value)
            case .minor:
                guard let value = target.minor else { continue }
                slot["minorID"] = Int(value)
            }
        }
        if !slot.isEmpty {
            let index: Int
            if let existing = iBeaconSlot {
                index = existing.index
            } else {
                guard let uuid = target.uuid, let major = target.major, let minor = target.minor else {
                    throw .noIBeaconSlot
                }
                index = 0
                slot["uuid"] = "\(uuid)"
                slot["majorID"] = Int(major)
                slot["minorID"] = Int(minor)
            }
            slot["slot"] = index
            slot["type"] = Self.iBeaconType
            top["advObj"] = [slot]
        }
        return Self.encode(top)
    }

    /// A `cfg` message that sets the password (`KBCfgCommon` `pwd`).
    static func passwordMessage(_ password: BeaconPassword) -> [UInt8] {
        encode(["msg": "cfg", "pwd": String(decoding: password.utf8, as: UTF8.self)])
    }

    private static func encode(_ object: [String: Any]) -> [UInt8] {
        // Only strings, integers, arrays and dictionaries: JSONSerialization cannot fail on them.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data)
    }

    // MARK: Reading values

    private static func string(_ object: [String: Any], _ key: String) throws(KBeaconConfigurationError) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value as? String else { throw .wrongKind(key: key, expected: "a string") }
        return text
    }

    private static func number(_ object: [String: Any], _ key: String) throws(KBeaconConfigurationError) -> Double? {
        guard let value = object[key] else { return nil }
        guard !(value is String), let number = value as? NSNumber else {
            throw .wrongKind(key: key, expected: "a number")
        }
        let double = number.doubleValue
        guard double.isFinite else { throw .wrongKind(key: key, expected: "a finite number") }
        return double
    }

    private static func integer(_ object: [String: Any], _ key: String) throws(KBeaconConfigurationError) -> Int? {
        guard let double = try number(object, key) else { return nil }
        guard let value = Int(checked: double), Double(value) == double, abs(value) <= 1_000_000_000 else {
            throw .wrongKind(key: key, expected: "a whole number")
        }
        return value
    }

    private static func identifierPart(_ object: [String: Any], _ key: String) throws(KBeaconConfigurationError) -> UInt16? {
        guard let value = try integer(object, key) else { return nil }
        guard let part = UInt16(exactly: value) else { throw .invalid(key: key, why: "\(value) is outside 0…65535") }
        return part
    }
}

/// Why a KBeacon JSON message could not be read or written.
package enum KBeaconConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLong(Int)
    case notJSON
    case notAnObject
    case wrongKind(key: String, expected: String)
    case invalid(key: String, why: String)
    case outOfRange(BeaconField, String)
    case noIBeaconSlot

    package var description: String {
        switch self {
        case .tooLong(let length): "a configuration of \(length) bytes (at most \(KBeaconFrame.maximumMessageLength))"
        case .notJSON: "a configuration that is not JSON"
        case .notAnObject: "a configuration that is not a JSON object"
        case .wrongKind(let key, let expected): "\"\(key)\" is not \(expected)"
        case .invalid(let key, let why): "\"\(key)\": \(why)"
        case .outOfRange(let field, let why): "\(field): \(why)"
        case .noIBeaconSlot:
            "the beacon has no iBeacon slot: give the whole identity (UUID, major and minor) to make slot 0 an iBeacon"
        }
    }
}
