#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCLI

let status = await BeaconCtlRunner.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
