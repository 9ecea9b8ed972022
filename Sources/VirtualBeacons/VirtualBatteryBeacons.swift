import BeaconCore
import Synchronization
import VirtualRadio

/// The battery beacons a `virtual:…,battery-beacons=N,eddystone-beacons=M,battery=P`
/// transport spec asks for, factory-fresh on the spec's air: N KBeacons
/// (``VirtualKBeacon``), the n-th at `06:BE:AC:BA:00:nn`, n metres east of the spec's point,
/// advertising the factory iBeacon identity; M Eddystone configuration beacons
/// (``VirtualEddystoneBeacon``), the m-th at `06:BE:AC:BA:01:mm`, m metres east and one
/// metre north of it, advertising an Eddystone-UID frame. Each starts with P % battery
/// (100 when not given).
public enum VirtualBatteryBeacons {
    /// At most this many of each kind per air (a spec cannot fill memory with beacons).
    public static let maximumCount = 64

    private static let installing = Mutex(())

    /// The public address of the n-th KBeacon (1-based): locally administered (the 0x02 bit
    /// of the first octet), so no manufacturer's registered one.
    public static func address(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(value: 0x06_BE_AC_BA_00_00 | UInt64(truncatingIfNeeded: index) & 0xFF) ?? .zero
    }

    /// The public address of the n-th Eddystone beacon (1-based), locally administered too.
    public static func eddystoneAddress(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(value: 0x06_BE_AC_BA_01_00 | UInt64(truncatingIfNeeded: index) & 0xFF) ?? .zero
    }

    /// Adds to `air` those of KBeacons 1…`kbeacons` and Eddystone beacons 1…`eddystones`
    /// it does not have yet (idempotent: opening the same spec twice adds nothing; a beacon
    /// already there keeps its battery level), around `origin`. Returns their addresses,
    /// KBeacons first.
    @discardableResult
    public static func ensure(
        kbeacons: Int, eddystones: Int = 0, batteryPercent: Int? = nil, on air: VirtualAir, around origin: PlanPoint = PlanPoint(x: 0, y: 0)
    ) -> [BluetoothAddress] {
        let battery = min(max(batteryPercent ?? 100, 0), 100)
        return installing.withLock { _ in
            let present = Set(air.peripheralAddresses)
            var addresses: [BluetoothAddress] = []
            func install(_ address: BluetoothAddress, at point: PlanPoint, _ make: () -> any VirtualPeripheral) {
                addresses.append(address)
                guard !present.contains(address) else { return }
                var configuration = VirtualControllerConfiguration(address: address)
                configuration.motion = .fixed(point)
                air.attachPeripheral(make(), configuration: configuration)
            }
            for index in stride(from: 1, through: min(max(kbeacons, 0), maximumCount), by: 1) {
                let address = address(index)
                install(address, at: PlanPoint(x: origin.x + Double(index), y: origin.y)) {
                    VirtualKBeacon(VirtualKBeacon.Configuration(address: address, state: .factory(batteryPercent: battery)))
                }
            }
            for index in stride(from: 1, through: min(max(eddystones, 0), maximumCount), by: 1) {
                let address = eddystoneAddress(index)
                install(address, at: PlanPoint(x: origin.x + Double(index), y: origin.y + 1)) {
                    VirtualEddystoneBeacon(
                        VirtualEddystoneBeacon.Configuration(
                            address: address, state: .factory(instance: address.value, batteryPercent: battery)))
                }
            }
            return addresses
        }
    }
}
