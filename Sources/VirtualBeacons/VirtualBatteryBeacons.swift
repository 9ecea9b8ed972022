import BeaconCore
import Synchronization
import VirtualRadio

/// The battery beacons a `virtual:…,battery-beacons=N` transport spec asks for: N
/// factory-fresh KBeacons (``VirtualKBeacon``) on the spec's air, the n-th at
/// `06:BE:AC:BA:00:nn`, n metres east of the spec's point, advertising the factory
/// identity connectably until a central writes another.
public enum VirtualBatteryBeacons {
    /// At most this many per air (a spec cannot fill memory with beacons).
    public static let maximumCount = 64

    private static let installing = Mutex(())

    /// The public address of the n-th battery beacon (1-based): locally administered (the
    /// 0x02 bit of the first octet), so no manufacturer's registered one.
    public static func address(_ index: Int) -> BluetoothAddress {
        let prefix: UInt64 = 0x06_BE_AC_BA_00_00
        return BluetoothAddress(value: prefix | UInt64(truncatingIfNeeded: index) & 0xFF) ?? .zero
    }

    /// Adds to `air` those of battery beacons 1…`count` it does not have yet (idempotent:
    /// opening the same spec twice adds nothing), around `origin`. Returns their addresses.
    @discardableResult
    public static func ensure(_ count: Int, on air: VirtualAir, around origin: PlanPoint = PlanPoint(x: 0, y: 0)) -> [BluetoothAddress] {
        let count = min(max(count, 0), maximumCount)
        return installing.withLock { _ in
            let present = Set(air.peripheralAddresses)
            var addresses: [BluetoothAddress] = []
            for index in stride(from: 1, through: count, by: 1) {
                let address = address(index)
                addresses.append(address)
                guard !present.contains(address) else { continue }
                var configuration = VirtualControllerConfiguration(address: address)
                configuration.motion = .fixed(PlanPoint(x: origin.x + Double(index), y: origin.y))
                air.attachPeripheral(VirtualKBeacon(VirtualKBeacon.Configuration(address: address)), configuration: configuration)
            }
            return addresses
        }
    }
}
