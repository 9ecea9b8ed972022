#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// provision-benchmark: battery beacons provisioned and verified per minute, on RootCanal.
///
///     swift run -c release provision-benchmark [--beacons 20] [--discovery-seconds 5]
///
/// Bumble plays `--beacons` KBeacons (Tests/IntegrationTests/Peripherals/kbeacon_peripheral.py),
/// each a controller of its own on one RootCanal. Two measurements on that air:
/// - baseline: a central connects to each beacon and disconnects, nothing else: what RootCanal
///   and the link layer cost per beacon, which no provisioning code can beat;
/// - provisioning: `provision --hardware`'s use case on a controller of its own, every beacon
///   pinned by `mac:`: discovery, then per beacon connect, open the kbeacon profile,
///   authenticate, read, write six fields (UUID, major, minor, measured power, TX power,
///   interval), read back, disconnect; then one verification scan that hears every beacon
///   with its new identity. The steps are timed as the provisioner announces them.
/// A person with a vendor app provisions 1–2 beacons a minute.
///
/// Exit status: 0 when every beacon was provisioned and verified, 1 when not (the figures
/// are printed either way), 2 when the air could not be set up.

let options = ProvisionBenchmarkOptions.parseOrExit()
exit(await ProvisionBenchmark.run(options))
