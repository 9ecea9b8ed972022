import BeaconCore

/// The telemetry a source decoded, taken from its inbox and not yet handed over: in the order
/// decoded, which is the order heard. A pass hands each reading over when its clock reaches
/// the reading's place, so only readings decoded ahead of a replay wait: the pending ones are
/// bounded by the reader's lead.
struct PendingTelemetry {
    let inbox: TelemetryInbox?
    private var readings: [TelemetryReading] = []
    private var start = 0

    init(inbox: TelemetryInbox?) {
        self.inbox = inbox
    }

    var hasReadings: Bool { start < readings.count }

    /// Takes what the source decoded since the last call.
    mutating func collect() {
        guard let inbox else { return }
        let taken = inbox.take()
        guard !taken.isEmpty else { return }
        if start == readings.count {
            readings = taken
            start = 0
        } else {
            readings.append(contentsOf: taken)
        }
    }

    /// The next reading placed at or before `dueBy` (any, with `nil`), in order, with its
    /// place: one whose place is unknown (`placedAt` gives `nil`: its receiver is not placed
    /// yet) is due at once.
    mutating func next(dueBy: PassTime?, placedAt: (TelemetryReading) -> PassTime?) -> (reading: TelemetryReading, placed: PassTime?)? {
        guard start < readings.count else { return nil }
        let reading = readings[start]
        let placed = placedAt(reading)
        if let dueBy, let placed, placed > dueBy { return nil }
        start += 1
        if start == readings.count {
            readings.removeAll(keepingCapacity: true)
            start = 0
        }
        return (reading, placed)
    }
}
