/// The answer to a raw command, as the controller sent it.
public enum HCICommandAnswer: Hashable, Sendable {
    /// Command Complete: the return parameters, status first.
    case complete(returnParameters: [UInt8])
    /// Command Status.
    case status(HCIStatus)

    /// The status, from whichever event answered.
    public var status: HCIStatus? {
        switch self {
        case .complete(let returnParameters): return returnParameters.first.map(HCIStatus.init(rawValue:))
        case .status(let status): return status
        }
    }
}
