import Testing
@testable import BeaconCLI
