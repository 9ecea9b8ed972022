import BeaconCore
import HCI

/// What a controller said about itself during bring-up.
public struct ControllerInfo: Hashable, Sendable {
    /// The transport spec it was reached through, e.g. `hci0`.
    public var name: String
    public var access: ControllerAccess
    public var version: ReadLocalVersionInformation.ReturnParameters
    /// The public address; all zeros when the controller has none (common on development boards).
    public var address: BluetoothAddress
    public var leFeatures: LEFeatures

    public init(
        name: String, access: ControllerAccess, version: ReadLocalVersionInformation.ReturnParameters,
        address: BluetoothAddress, leFeatures: LEFeatures
    ) {
        self.name = name
        self.access = access
        self.version = version
        self.address = address
        self.leFeatures = leFeatures
    }

    /// LE feature bit 12: advertising sets and the extended command family.
    public var supportsExtendedAdvertising: Bool { leFeatures.contains(.extendedAdvertising) }

    public var hasPublicAddress: Bool { address != .zero }

    /// `Intel (0x0002)`, or the bare number for a company the table does not know.
    public var manufacturer: String { CompanyIdentifiers.describe(version.companyIdentifier) }
}
