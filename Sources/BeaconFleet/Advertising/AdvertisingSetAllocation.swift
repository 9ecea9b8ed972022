import BeaconCore
import HCI

/// The advertising sets another program holds on a controller shared with the kernel, as
/// the kernel's management interface lists them (BlueZ doc/mgmt-api.txt, Read Advertising
/// Features and Read Controller Information).
public struct OccupiedAdvertisingSets: Hashable, Sendable {
    /// Registered mgmt advertising instances (bluetoothd's advertisements, `btmgmt add-adv`).
    public var instances: [UInt8]
    /// The Advertising setting (mgmt Set Advertising) is on: the kernel's instance 0.
    public var advertisingSettingOn: Bool

    public init(instances: [UInt8], advertisingSettingOn: Bool = false) {
        self.instances = instances
        self.advertisingSettingOn = advertisingSettingOn
    }

    /// How many of the controller's sets they take.
    public var setCount: Int { instances.count + (advertisingSettingOn ? 1 : 0) }

    /// The set handles they use. The kernel advertises instance N from set handle N and the
    /// Advertising setting from set 0 (net/bluetooth/hci_sync.c); a controller with a single
    /// set gets instance 1 on handle 0 from newer kernels, so 0 counts as taken there too.
    func handles(setsSupported: Int) -> Set<UInt8> {
        var handles = Set(instances)
        if advertisingSettingOn || (setsSupported <= 1 && !instances.isEmpty) { handles.insert(0) }
        return handles
    }

    /// "instance 1", "instances 1, 2 and the Advertising setting": what the user can find in `btmgmt`.
    var described: String {
        var parts: [String] = []
        if !instances.isEmpty {
            let numbers = instances.sorted().map(String.init).joined(separator: ", ")
            parts.append("mgmt advertising \(NumberText.noun("instance", for: instances.count)) \(numbers)")
        }
        if advertisingSettingOn { parts.append("the Advertising setting (set 0)") }
        return parts.joined(separator: " and ")
    }
}

/// Which advertising set handles a run's beacons get.
///
/// On an exclusive controller (reset first) beaconctl numbers its sets 0…n−1. On one shared
/// with the kernel, bluetoothd's mgmt instances use handles 1, 2, … from the bottom up (and
/// the Advertising setting 0), so beaconctl takes the free handles from the top of the
/// controller's range down: handle sets−1 first. Both then only meet when the controller is
/// nearly full, and the free handles left over are spares for a set taken in a race.
struct AdvertisingSetAllocation: Equatable, Sendable {
    /// One handle per beacon, in the beacons' order.
    var handles: [AdvertisingHandle]
    /// Free handles no beacon got, best first: for a set found taken when it is created.
    var spares: [AdvertisingHandle]

    /// Handles go up to 0xEF (Core v5.4 Vol 4 Part E 7.8.53): more sets than that cannot be named.
    static func usableSets(supported: UInt8) -> Int {
        min(Int(supported), Int(AdvertisingHandle.validRange.upperBound) + 1)
    }

    /// Allocates `beacons` handles on controller `controller` with `supported` sets. `shared`:
    /// the controller is `hci<index>`'s, shared with the kernel, where `occupied` are another
    /// program's; `nil`: it is beaconctl's alone.
    static func allocate(
        beacons: Int, supported: UInt8, shared: (index: UInt16, occupied: OccupiedAdvertisingSets)?,
        controller: String
    ) throws(AdvertisingError) -> AdvertisingSetAllocation {
        let usable = usableSets(supported: supported)
        guard let shared else {
            guard beacons <= usable else {
                throw .tooManyBeacons(controller: controller, requested: beacons, supported: usable)
            }
            let handles = (0..<beacons).compactMap { AdvertisingHandle(rawValue: UInt8($0)) }
            return AdvertisingSetAllocation(handles: handles, spares: [])
        }
        let (index, occupied) = shared
        let taken = occupied.handles(setsSupported: usable)
        let free = (0..<usable).reversed().compactMap { value -> AdvertisingHandle? in
            let handle = UInt8(value)
            return taken.contains(handle) ? nil : AdvertisingHandle(rawValue: handle)
        }
        // Sets the kernel holds count against the controller's capacity wherever their handles lie.
        let available = max(0, min(free.count, usable - occupied.setCount))
        guard beacons <= available else {
            guard occupied.setCount > 0 else {
                throw .tooManyBeacons(controller: controller, requested: beacons, supported: usable)
            }
            throw .notEnoughFreeSets(
                controller: controller, index: index, requested: beacons, supported: usable, free: available,
                occupied: occupied)
        }
        return AdvertisingSetAllocation(handles: Array(free.prefix(beacons)), spares: Array(free.dropFirst(beacons)))
    }
}
