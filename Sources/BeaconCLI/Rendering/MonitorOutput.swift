import ArgumentParser
import BeaconCore
import BeaconFleet

/// Where monitoring reports go: JSON lines, or a readable log (a terminal's default).
struct MonitorOutput: MonitorReportSink {
    enum Format: String, CaseIterable, Sendable, ExpressibleByArgument {
        case text, jsonl
    }

    let format: Format
    let names: [BeaconIdentity: String]
    let hook: MonitorEventHook?

    func report(_ events: [RegionEvent]) {
        for event in events {
            switch format {
            case .jsonl: Console.current.line(MonitorJSONLines.encode(event))
            case .text: Console.current.line(text(event))
            }
            hook?.run(for: event)
        }
    }

    func report(_ rangings: [RegionRanging]) {
        for ranging in rangings {
            switch format {
            case .jsonl:
                Console.current.line(MonitorJSONLines.encode(ranging))
            case .text:
                // Each receiver ranges on its own readings: name it when there are several.
                let severalReceivers = ScanTable.comeFromSeveralReceivers(ranging.beacons)
                let beacons = ranging.beacons.map { beacon in
                    let distance = DistanceText.withInterval(beacon) ?? "?"
                    let receiver = severalReceivers ? " from \(Self.printable(beacon.receiver))" : ""
                    return "\(name(beacon.identity)) \(beacon.proximity.rawValue) \(distance)\(receiver)"
                }
                Console.current.line("\(time(ranging.time.seconds))  range  \(Self.printable(ranging.regionIdentifier)): " + (beacons.isEmpty ? "none" : beacons.joined(separator: ", ")))
            }
        }
    }

    /// `  35.9 s  enter  store-1 (inside): cupertino-door, …`, and with several receivers
    /// `; heard by store-1:hci0 (-61 dBm), store-2:hci0 (-77 dBm)`.
    private func text(_ event: RegionEvent) -> String {
        let beacons = event.beacons.isEmpty ? "" : ": " + event.beacons.map(name).joined(separator: ", ")
        var receivers = ""
        if event.receivers.count > 1 {
            receivers = "; heard by " + event.receivers.map { receiver in
                Self.printable(receiver.receiver) + (receiver.strongestRSSI.map { " (\($0) dBm)" } ?? "")
            }.joined(separator: ", ")
        }
        return "\(time(event.time.seconds))  \(event.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))  \(Self.printable(event.regionIdentifier)) (\(event.state.rawValue))\(beacons)\(receivers)"
    }

    private func name(_ identity: BeaconIdentity) -> String {
        names[identity].map(Self.printable) ?? identity.description
    }

    /// Text from a manifest or the command line with its control characters escaped (`\n`,
    /// `\u{1B}`): one event stays one line, and nothing reaches the terminal as a command.
    static func printable(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    private func time(_ seconds: Double) -> String {
        let text = ScanTable.decimal(seconds, places: 1) + " s"
        return String(repeating: " ", count: max(0, 9 - text.count)) + text
    }
}
