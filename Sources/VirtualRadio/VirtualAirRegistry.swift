import BeaconCore
import Synchronization

/// The airs of this process by name: what `virtual[:SCENARIO]` transport specs resolve
/// against. An air named in a spec that nobody registered is created on first use with
/// ``VirtualAir/Configuration/live``, so that `beaconctl advertise --hci virtual` and a
/// scanner in the same process meet on the air "default".
public enum VirtualAirRegistry {
    private final class Storage: Sendable {
        let airs = Mutex<[String: VirtualAir]>([:])
    }

    private static let storage = Storage()

    /// Registers `air` under its name, replacing an earlier air of that name (whose
    /// controllers stay on the old air). Tests register an air with virtual time this way
    /// before opening `virtual:NAME` transports.
    public static func register(_ air: VirtualAir) {
        storage.airs.withLock { $0[air.name] = air }
    }

    public static func air(named name: String) -> VirtualAir? {
        storage.airs.withLock { $0[name] }
    }

    /// The air `name`, created with `configuration` if there is none yet.
    public static func air(
        named name: String, creatingWith configuration: VirtualAir.Configuration = .live
    ) -> VirtualAir {
        storage.airs.withLock { airs in
            if let air = airs[name] { return air }
            let air = VirtualAir(name: name, configuration: configuration)
            airs[name] = air
            return air
        }
    }

    /// Forgets the air `name` (its controllers keep running until closed).
    public static func remove(named name: String) {
        storage.airs.withLock { $0[name] = nil }
    }

    public static var names: [String] {
        storage.airs.withLock { $0.keys.sorted() }
    }

    /// Opens a controller where `spec` says: on its air (created if needed), at its place
    /// or point. `transportName` names the transport in messages (the whole transport spec).
    public static func openController(
        _ spec: VirtualControllerSpec, transportName: String
    ) throws(VirtualRadioError) -> VirtualControllerTransport {
        let air = air(named: spec.airName, creatingWith: .live)
        var configuration = VirtualControllerConfiguration()
        if let placeName = spec.placeName {
            guard let place = air.place(named: placeName) else {
                let known = air.placeNames
                throw VirtualRadioError(
                    "\(transportName): the air \"\(spec.airName)\" has no place \"\(placeName)\"; "
                        + (known.isEmpty
                            ? "it has no places at all (a scenario defines them, e.g. from a fleet manifest); use virtual:\(spec.airName)@X,Y for a point"
                            : "its places are: \(known.joined(separator: ", "))"))
            }
            configuration.supportsExtendedAdvertising = place.supportsExtendedAdvertising
            if let point = spec.point {
                guard let origin = place.planOrigin else {
                    throw VirtualRadioError(
                        "\(transportName): the place \"\(placeName)\" is not a plan, so it takes no @X,Y; "
                            + "write virtual:\(spec.airName)/\(placeName) or give a venue as the place")
                }
                configuration.motion = .fixed(PlanPoint(x: origin.x + point.x, y: origin.y + point.y))
            } else {
                configuration.motion = place.motion
            }
        } else if let point = spec.point {
            configuration.motion = .fixed(point)
        }
        return air.attachController(configuration, name: transportName)
    }
}

extension VirtualAir.Configuration {
    /// What an air created on demand for the command line gets: real time, a fixed seed,
    /// an indoor-like medium (path-loss exponent 2, 3 dB shadowing, 2 % packet loss), and
    /// beacons that send Eddystone-TLM beside their iBeacon (`VirtualBeaconTelemetry.standard`),
    /// so that scans and audits show a battery with no hardware.
    public static let live = VirtualAir.Configuration(
        seed: 1,
        propagation: PropagationModel(pathLossExponent: 2, shadowingSigma: 3, packetLoss: 0.02),
        timeMode: .realTime(speed: 1), beaconTelemetry: .standard)
}
