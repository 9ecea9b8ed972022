import FleetManifest
import HCI
import HCITransports
import VirtualRadio

extension VirtualScenario {
    /// Lays `fleet` out on the registered air `airName`, creating it with `configuration`
    /// if this process has none of that name yet.
    @discardableResult
    public static func install(
        _ fleet: Fleet, airName: String = VirtualControllerSpec.defaultAirName,
        configuration: VirtualAir.Configuration = .live, walkSpeed: Double = 1.0
    ) -> VirtualScenario {
        VirtualScenario(
            fleet: fleet, on: VirtualAirRegistry.air(named: airName, creatingWith: configuration), walkSpeed: walkSpeed)
    }

    /// For a command about to use `spec`: when it names the virtual radio, lays `fleet`
    /// out on the air it names, so that advertising there puts each beacon at its manifest
    /// position and a scanner opened at a place of the fleet (`virtual:AIR/VENUE`) hears
    /// them. `nil` for every other transport. This is how one process runs validate →
    /// advertise → verify on virtual controllers.
    @discardableResult
    public static func prepare(_ fleet: Fleet, for spec: HCITransportSpec) throws(HCITransportError) -> VirtualScenario? {
        guard case .virtual(let scenario) = spec else { return nil }
        do {
            let placement = try VirtualControllerSpec(parsing: scenario)
            return install(fleet, airName: placement.airName)
        } catch {
            throw HCITransportError(.invalidSpec, "invalid transport \"\(spec)\": \(error.message)")
        }
    }

    /// The transport spec of a controller at `place` on this scenario's air
    /// (`virtual:AIR/PLACE`), or on the air itself at (0, 0) when `place` is `nil`.
    public func transportSpec(place: String? = nil) -> HCITransportSpec {
        .virtual(scenario: VirtualControllerSpec(airName: air.name, placeName: place).description)
    }
}
