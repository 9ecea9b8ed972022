/// What `HostController.traffic()` delivers: the controller's events and ACL data in the
/// order they arrived, then the end of the link.
public enum HostTraffic: Sendable, Equatable {
    case event(HCIEvent)
    case acl(ACLDataPacket)
    /// `nil` when `HostController.close()` ended it; otherwise why the transport stopped.
    case transportEnded(HCITransportError?)
}

extension HostControllerEvent {
    /// The transport's failure carried by `.transportEnded`, `nil` for any other notice.
    var endedTransportError: HCITransportError? {
        if case .transportEnded(let error) = self { return error }
        return nil
    }
}
