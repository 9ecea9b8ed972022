/// The timing of an LE connection as the central asks for it (Core v5.4 Vol 4 Part E 7.8.12
/// and 7.8.18): interval in units of 1.25 ms, supervision timeout in units of 10 ms,
/// connection-event lengths in units of 0.625 ms.
public struct LEConnectionParameters: Hashable, Sendable {
    public var intervalMinimum: UInt16
    public var intervalMaximum: UInt16
    /// Connection events the peripheral may skip (Max_Latency).
    public var maximumLatency: UInt16
    public var supervisionTimeout: UInt16
    public var minimumEventLength: UInt16
    public var maximumEventLength: UInt16

    /// Interval 0x0006–0x0C80 (7.5 ms – 4 s), latency up to 0x01F3, timeout 0x000A–0x0C80
    /// (100 ms – 32 s), and a timeout longer than (1 + latency) × interval × 2 so that the
    /// link is not declared lost between two events the peripheral may skip.
    public init(
        intervalMinimum: UInt16, intervalMaximum: UInt16, maximumLatency: UInt16, supervisionTimeout: UInt16,
        minimumEventLength: UInt16 = 0, maximumEventLength: UInt16 = 0
    ) throws(HCIParameterError) {
        if let problem = Self.problem(
            intervalMinimum: intervalMinimum, intervalMaximum: intervalMaximum, maximumLatency: maximumLatency,
            supervisionTimeout: supervisionTimeout)
        {
            throw HCIParameterError("connection parameters: \(problem)")
        }
        guard minimumEventLength <= maximumEventLength else {
            throw HCIParameterError("connection parameters: minimum event length \(minimumEventLength) exceeds the maximum \(maximumEventLength)")
        }
        self.intervalMinimum = intervalMinimum
        self.intervalMaximum = intervalMaximum
        self.maximumLatency = maximumLatency
        self.supervisionTimeout = supervisionTimeout
        self.minimumEventLength = minimumEventLength
        self.maximumEventLength = maximumEventLength
    }

    /// Why these values are outside the ranges of Core v5.4 Vol 4 Part E 7.8.12, or `nil`.
    public static func problem(
        intervalMinimum: UInt16, intervalMaximum: UInt16, maximumLatency: UInt16, supervisionTimeout: UInt16
    ) -> String? {
        let intervals: ClosedRange<UInt16> = 0x0006...0x0C80
        guard intervals.contains(intervalMinimum), intervals.contains(intervalMaximum) else {
            return "interval \(intervalMinimum)–\(intervalMaximum) (× 1.25 ms) is outside 6–3200"
        }
        guard intervalMinimum <= intervalMaximum else {
            return "minimum interval \(intervalMinimum) exceeds the maximum \(intervalMaximum)"
        }
        guard maximumLatency <= 0x01F3 else { return "latency \(maximumLatency) exceeds 499" }
        guard (0x000A...0x0C80).contains(supervisionTimeout) else {
            return "supervision timeout \(supervisionTimeout) (× 10 ms) is outside 10–3200"
        }
        // timeout × 10 ms > (1 + latency) × interval × 1.25 ms × 2, in integers: × 4.
        guard Int(supervisionTimeout) * 4 > (1 + Int(maximumLatency)) * Int(intervalMaximum) else {
            return "supervision timeout \(Int(supervisionTimeout) * 10) ms is not longer than twice "
                + "(1 + latency \(maximumLatency)) × the maximum interval"
        }
        return nil
    }

    /// 30–50 ms interval, no latency, 4 s supervision timeout: quick GATT exchanges, and a
    /// link that survives a few missed events.
    public static let quickExchange = LEConnectionParameters(
        constantIntervalMinimum: 24, intervalMaximum: 40, maximumLatency: 0, supervisionTimeout: 400)

    /// For constants whose values are within every range checked above.
    private init(constantIntervalMinimum: UInt16, intervalMaximum: UInt16, maximumLatency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMinimum = constantIntervalMinimum
        self.intervalMaximum = intervalMaximum
        self.maximumLatency = maximumLatency
        self.supervisionTimeout = supervisionTimeout
        self.minimumEventLength = 0
        self.maximumEventLength = 0
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.appendLittleEndian(intervalMinimum)
        bytes.appendLittleEndian(intervalMaximum)
        bytes.appendLittleEndian(maximumLatency)
        bytes.appendLittleEndian(supervisionTimeout)
        bytes.appendLittleEndian(minimumEventLength)
        bytes.appendLittleEndian(maximumEventLength)
    }

    static func decode(_ reader: inout HCIByteReader) throws(HCIDecodingError) -> LEConnectionParameters {
        let minimum = try reader.readUInt16()
        let maximum = try reader.readUInt16()
        let latency = try reader.readUInt16()
        let timeout = try reader.readUInt16()
        let minimumEvent = try reader.readUInt16()
        let maximumEvent = try reader.readUInt16()
        do {
            return try LEConnectionParameters(
                intervalMinimum: minimum, intervalMaximum: maximum, maximumLatency: latency, supervisionTimeout: timeout,
                minimumEventLength: minimumEvent, maximumEventLength: maximumEvent)
        } catch {
            throw .inconsistentParameters(structure: reader.structure, reason: error.message)
        }
    }
}
