import Testing
@testable import BeaconFleet
