import ArgumentParser
import BeaconFleet

/// `fleet export --format`: the formats `FleetExporting` writes, by their names.
extension FleetExportFormat: ExpressibleByArgument {}
