import Testing
@testable import FleetManifest
