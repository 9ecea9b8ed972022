import HCI

/// How an `LECentral` drives its controller.
public struct LECentralConfiguration: Sendable {
    /// Reset the controller and set both event masks first: for controllers this program
    /// has to itself (USER channel, TCP, serial, the virtual radio). Never on a controller
    /// the kernel owns (hci0 beside bluetoothd): there connections are the kernel's.
    public var resetsController = true
    /// Scanning for the peripheral while connecting: 60 ms every 60 ms (continuous).
    public var scanInterval: ScanInterval = .connecting
    public var scanWindow: ScanInterval = .connecting
    public var connection: LEConnectionParameters = .quickExchange
    /// The own address connections are made from.
    public var ownAddressType: OwnAddressType = .public
    /// The longest L2CAP frame accepted from a peripheral (the largest ATT_MTU, 517, is the
    /// most any fixed channel here needs); longer ones are skipped, not buffered.
    public var maximumFrameLength = 517
    /// The ATT transaction timeout (Core v5.4 Vol 3 Part F 3.3.3).
    public var transactionTimeout: Duration = ATTClient.defaultTransactionTimeout
    /// How long Disconnect, and a connection attempt's cancellation, may take to complete.
    public var disconnectTimeout: Duration = .seconds(5)

    public init() {}
}
