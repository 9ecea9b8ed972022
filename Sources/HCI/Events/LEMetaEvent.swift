/// An LE Meta event (Core v5.4 Vol 4 Part E 7.7.65): `subevent u8 | parameters`.
public enum LEMetaEvent: Hashable, Sendable {
    /// LE Advertising Report (7.7.65.2): one or more legacy reports.
    case advertisingReport([LEAdvertisingReport])
    /// LE Extended Advertising Report (7.7.65.13): one or more extended reports.
    case extendedAdvertisingReport([LEExtendedAdvertisingReport])
    /// LE Scan Timeout (7.7.65.17): extended scanning ended its duration.
    case scanTimeout
    /// LE Advertising Set Terminated (7.7.65.18).
    case advertisingSetTerminated(LEAdvertisingSetTerminated)
    /// LE Connection Complete (7.7.65.1) or LE Enhanced Connection Complete (7.7.65.10).
    case connectionComplete(LEConnectionComplete)
    /// LE Connection Update Complete (7.7.65.3).
    case connectionUpdateComplete(LEConnectionUpdateComplete)
    case unknown(subevent: LESubeventCode, parameters: [UInt8])

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = HCIByteReader(parameters, structure: "LE Meta event")
        let subevent = LESubeventCode(rawValue: try reader.readUInt8())
        let body = reader.readRemaining()
        switch subevent {
        case .advertisingReport:
            self = .advertisingReport(try LEAdvertisingReport.decodeReports(body))
        case .extendedAdvertisingReport:
            self = .extendedAdvertisingReport(try LEExtendedAdvertisingReport.decodeReports(body))
        case .scanTimeout:
            self = .scanTimeout
        case .advertisingSetTerminated:
            self = .advertisingSetTerminated(try LEAdvertisingSetTerminated(parameters: body))
        case .connectionComplete:
            self = .connectionComplete(try LEConnectionComplete(parameters: body, enhanced: false))
        case .enhancedConnectionComplete:
            self = .connectionComplete(try LEConnectionComplete(parameters: body, enhanced: true))
        case .connectionUpdateComplete:
            self = .connectionUpdateComplete(try LEConnectionUpdateComplete(parameters: body))
        default:
            self = .unknown(subevent: subevent, parameters: Array(body))
        }
    }

    public var subevent: LESubeventCode {
        switch self {
        case .advertisingReport: return .advertisingReport
        case .extendedAdvertisingReport: return .extendedAdvertisingReport
        case .scanTimeout: return .scanTimeout
        case .advertisingSetTerminated: return .advertisingSetTerminated
        case .connectionComplete(let event): return event.isEnhanced ? .enhancedConnectionComplete : .connectionComplete
        case .connectionUpdateComplete: return .connectionUpdateComplete
        case .unknown(let subevent, _): return subevent
        }
    }

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(subevent.rawValue)
        switch self {
        case .advertisingReport(let reports): LEAdvertisingReport.encodeReports(reports, into: &bytes)
        case .extendedAdvertisingReport(let reports): LEExtendedAdvertisingReport.encodeReports(reports, into: &bytes)
        case .scanTimeout: break
        case .advertisingSetTerminated(let event): event.encodeParameters(into: &bytes)
        case .connectionComplete(let event): event.encodeParameters(into: &bytes)
        case .connectionUpdateComplete(let event): event.encodeParameters(into: &bytes)
        case .unknown(_, let parameters): bytes += parameters
        }
    }
}

/// LE Advertising Set Terminated (Core v5.4 Vol 4 Part E 7.7.65.18):
/// `status u8 | handle u8 | connection_handle u16 | num_completed_ext_adv_events u8`.
/// Status 0x3C (Advertising Timeout) or 0x43 (Limit Reached) when the set stopped on its
/// own; success when a connection ended it.
public struct LEAdvertisingSetTerminated: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: AdvertisingHandle
    /// Meaningful only when a connection ended the set (status success).
    public var connectionHandle: UInt16
    public var completedExtendedAdvertisingEvents: UInt8

    public init(status: HCIStatus, handle: AdvertisingHandle, connectionHandle: UInt16, completedExtendedAdvertisingEvents: UInt8) {
        self.status = status
        self.handle = handle
        self.connectionHandle = connectionHandle
        self.completedExtendedAdvertisingEvents = completedExtendedAdvertisingEvents
    }

    init(parameters: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var reader = HCIByteReader(parameters, structure: "LE Advertising Set Terminated event")
        status = HCIStatus(rawValue: try reader.readUInt8())
        handle = try reader.readAdvertisingHandle()
        connectionHandle = try reader.readUInt16()
        completedExtendedAdvertisingEvents = try reader.readUInt8()
    }

    func encodeParameters(into bytes: inout [UInt8]) {
        bytes.append(status.rawValue)
        bytes.append(handle.rawValue)
        bytes.appendLittleEndian(connectionHandle)
        bytes.append(completedExtendedAdvertisingEvents)
    }
}
