/// What `HostController.events()` delivers: every event from the controller, plus the
/// notices a watchdog needs.
public enum HostControllerEvent: Sendable, Equatable {
    /// An event from the controller, in arrival order. Includes the Command Complete and
    /// Command Status events that answered commands, and Hardware Error.
    case event(HCIEvent)
    /// A Reset completed that this host did not send (another program on a shared kernel
    /// socket, or the controller restarting): advertising and scanning state is gone.
    case unsolicitedReset
    /// A packet from the controller that could not be decoded; it was skipped.
    case malformedPacket(HCIPacket, HCIDecodingError)
    /// The link to the controller ended. `nil` when `HostController.close()` ended it;
    /// otherwise why the transport stopped. The stream finishes after this element.
    case transportEnded(HCITransportError?)
}
