import BeaconCore
import ClockTestKit
import HCITestKit
@testable import HCI

/// The H4 bytes of `command` as a host sends them.
func h4(_ command: some HCICommand) throws -> [UInt8] {
    try HCICommandPacket(command).packet.h4Bytes
}

func handle(_ value: UInt8) throws -> AdvertisingHandle {
    guard let handle = AdvertisingHandle(rawValue: value) else { throw TestFailure("no handle \(value)") }
    return handle
}

func interval(_ units: UInt32) throws -> AdvertisingInterval {
    guard let interval = AdvertisingInterval(units: units) else { throw TestFailure("no interval \(units)") }
    return interval
}

func scanInterval(_ units: UInt16) throws -> ScanInterval {
    guard let interval = ScanInterval(units: units) else { throw TestFailure("no scan interval \(units)") }
    return interval
}

func address(_ text: String) throws -> BluetoothAddress {
    guard let address = BluetoothAddress(text) else { throw TestFailure("bad address \(text)") }
    return address
}


/// The iBeacon advertising data used in several vectors: UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,
/// major 1, minor 2, measured power −59 dBm (0xC5).
let iBeaconData = hex("02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5")
