import BeaconCore

/// Telling receivers their keep-list through the broker, on each gateway's documented
/// configuration topics, and reading back what they report (docs/gateways.md, "Keep only the
/// fleet's beacons"):
///
/// | gateway | publishes | reads back |
/// |---|---|---|
/// | ESPresense | `BASE/rooms/ROOM/include/set` (ROOM `*`: every board), the prefixes | each board's retained `BASE/rooms/ROOM/include`, and its `BASE/rooms/ROOM/status` |
/// | OpenMQTTGateway | `BASE/NAME/commands/MQTTtoBT/config`, `{"white-list":[…],"ignoreWBlist":false}`, in runs of 8 addresses, retained when one run holds them all | the BT settings it publishes on `BASE/NAME/BTtoMQTT` after each command, and its `BASE/NAME/LWT` |
///
/// ESPresense (`src/main.cpp`, ESPresense/ESPresense) subscribes to `espresense/rooms/*/+/set`
/// and to its own room's `+/set`; `BleFingerprintCollection::Command` takes `include`, and the
/// board then publishes every setting again, retained, on `rooms/ROOM/SETTING`
/// (`sendTelemetry`'s `!online` branch). It keeps the setting in its flash, so the command is
/// not retained. OpenMQTTGateway (`XtoBT` in `main/gatewayBT.cpp`) reads `white-list` from
/// its `commands/MQTTtoBT/config` topic, then publishes its BT settings (`stateBTMeasures`,
/// which carries `ignoreWBlist` but not the list); it does not keep the list across a restart,
/// so the command is retained, as its documentation advises, when one command holds the list. Theengs Gateway takes its
/// `whitelist` only from its configuration file or command line: it has no topic to be told.
public struct GatewayConfiguration: Sendable {
    /// A gateway that cannot be configured through the broker.
    public struct Unsupported: Error, Hashable, Sendable, CustomStringConvertible {
        public var kind: GatewayKeepList.Kind
        public var description: String {
            "\(kind.displayName) takes its white list only from its configuration file (`whitelist` in theengsgw.conf) or its command line (`--whitelist`), not from the broker: write it with `beaconctl fleet export --format theengs` and restart the gateway"
        }
    }

    /// One message to publish.
    public struct Publication: Hashable, Sendable {
        public var topic: String
        public var payload: String
        public var retain: Bool
    }

    public let list: GatewayKeepList
    /// The gateway's base topic.
    public let base: String
    /// The receivers addressed by name (ESPresense rooms, OpenMQTTGateway names); for
    /// ESPresense, none means every board (`rooms/*`).
    public let receivers: [String]

    /// `base` `nil`: the gateway's factory default. OpenMQTTGateway with no receiver named is
    /// its factory name, `OpenMQTTGateway`.
    public init(list: GatewayKeepList, base: String?, receivers: [String]) throws(Unsupported) {
        guard list.kind != .theengs else { throw Unsupported(kind: list.kind) }
        self.list = list
        self.base = base ?? list.kind.gateway.decoder.defaultBase
        self.receivers = list.kind == .openMQTTGateway && receivers.isEmpty ? ["OpenMQTTGateway"] : receivers
    }

    /// What is published, in order.
    public var publications: [Publication] {
        switch list.kind {
        case .espresense:
            let rooms = receivers.isEmpty ? ["*"] : receivers
            return rooms.map { Publication(topic: "\(base)/rooms/\($0)/include/set", payload: list.text, retain: false) }
        case .openMQTTGateway:
            // Retained, to be applied again when the gateway reconnects after a restart, while
            // the list fits one command: a topic retains one message, the last.
            let commands = list.openMQTTGatewayCommands
            return receivers.flatMap { receiver in
                commands.map { Publication(topic: "\(base)/\(receiver)/commands/MQTTtoBT/config", payload: $0, retain: commands.count == 1) }
            }
        case .theengs:
            return []
        }
    }

    /// Where the receivers' answers and statuses come, subscribed to before publishing.
    public var answerFilters: [String] {
        switch list.kind {
        case .espresense:
            let rooms = receivers.isEmpty ? ["+"] : receivers
            return rooms.flatMap { ["\(base)/rooms/\($0)/include", "\(base)/rooms/\($0)/status"] }
        case .openMQTTGateway:
            return receivers.flatMap { ["\(base)/\($0)/BTtoMQTT", "\(base)/\($0)/LWT"] }
        case .theengs:
            return []
        }
    }

    /// What the receivers said so far.
    public struct ReadBack: Hashable, Sendable {
        /// Receivers whose status said `online` (and did not say `offline` since).
        public var online: Set<String> = []
        /// Receivers that reported the list (ESPresense) or took the command (OpenMQTTGateway).
        public var confirmed: Set<String> = []
        /// Receivers that reported something else: the value they hold, or why it is not the list.
        public var differing: [String: String] = [:]
        /// OpenMQTTGateway's settings answers so far, by receiver: one per command taken.
        public var answers: [String: Int] = [:]

        public init() {}
    }

    /// Reads one answer into `readBack`. `retained`: the broker's copy from before (a
    /// retained include that already equals the list is confirmation too; an old command
    /// echo is not).
    public func read(topic: String, payload: [UInt8], retained: Bool, into readBack: inout ReadBack) {
        guard let levels = GatewaySighting.levels(of: topic, under: base) else { return }
        let text = String(decoding: payload, as: UTF8.self)
        switch list.kind {
        case .espresense:
            guard levels.count == 3, levels[0] == "rooms", !levels[1].isEmpty else { return }
            let room = String(levels[1])
            if levels[2] == "status" {
                if text == "online" { readBack.online.insert(room) } else { readBack.online.remove(room) }
            } else if levels[2] == "include" {
                if text == list.text {
                    readBack.confirmed.insert(room)
                    readBack.differing[room] = nil
                } else {
                    readBack.confirmed.remove(room)
                    readBack.differing[room] = "its include is \(JSONText.stringLiteral(String(text.prefix(120))))"
                }
            }
        case .openMQTTGateway:
            guard levels.count == 2, !levels[0].isEmpty else { return }
            let name = String(levels[0])
            if levels[1] == "LWT" {
                if text == "online" { readBack.online.insert(name) } else { readBack.online.remove(name) }
            } else if levels[1] == "BTtoMQTT", !retained {
                // The settings echo carries `ignoreWBlist`; a list it ignores keeps nothing out.
                guard payload.count <= GatewayPayload.maximumBytes,
                      let members = try? SightingJSONObjectReader.members(of: payload),
                      case .bool(let ignores)? = members.first(where: { $0.0 == "ignoreWBlist" })?.1
                else { return }
                if ignores {
                    readBack.differing[name] = "it answered with \"ignoreWBlist\": true (its white list is switched off)"
                    readBack.confirmed.remove(name)
                    return
                }
                let answers = (readBack.answers[name] ?? 0) + 1
                readBack.answers[name] = answers
                // Every command it took answers once (`stateBTMeasures`): all of them, or not yet.
                let commands = list.openMQTTGatewayCommands.count
                if answers >= commands {
                    readBack.confirmed.insert(name)
                    readBack.differing[name] = nil
                } else {
                    readBack.differing[name] = "it answered \(answers) of the \(commands) commands"
                }
            }
        case .theengs:
            return
        }
    }

    /// The receivers expected to answer: those named, or (ESPresense, every board) those
    /// online or holding a list.
    public func expected(_ readBack: ReadBack) -> [String] {
        if !receivers.isEmpty { return receivers }
        return readBack.online.union(readBack.confirmed).union(readBack.differing.keys).sorted()
    }

    /// Whether every expected receiver confirmed (and there is at least one).
    public func isComplete(_ readBack: ReadBack) -> Bool {
        let expected = expected(readBack)
        return !expected.isEmpty && expected.allSatisfy { readBack.confirmed.contains($0) }
    }
}
