import BeaconFleet
import HCI

#if os(Linux)
import HCILinux
#endif

/// The advertising sets bluetoothd holds on a kernel controller, from the kernel's
/// management interface (`KernelManagementSocket`).
enum KernelOccupiedAdvertisingSets {
    static func read(index: UInt16, timeout: Duration) async throws(HCITransportError) -> OccupiedAdvertisingSets {
        #if os(Linux)
        let listed = try await KernelManagementSocket.readAdvertisingInstances(index: index, timeout: timeout)
        return OccupiedAdvertisingSets(instances: listed.instances, advertisingSettingOn: listed.advertisingSettingOn)
        #else
        throw HCITransportError(.unsupported, "hci\(index): the kernel's management interface exists on Linux only")
        #endif
    }
}
