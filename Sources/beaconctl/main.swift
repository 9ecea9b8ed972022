#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCLI

#if canImport(Glibc)
// One malloc arena for every thread, set before any thread is started. glibc otherwise
// gives each thread that allocates an arena of its own, grown by mprotect calls and holding
// its freed memory apart: the manifest loader's thread growing one showed as 3.7 % of a
// profile of `fleet validate` at 100 000 beacons, which takes 3 % less with one arena
// (docs/manifest.md, "Validation speed and memory"). beaconctl runs a handful of threads,
// and each thread's cache of small chunks (tcache) keeps them off the one arena's lock.
// mallopt and M_ARENA_MAX (-8) are in malloc.h, which the Glibc module does not export:
// looked up at run time, as glibc has it.
if let symbol = dlsym(nil, "mallopt") {
    typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
    _ = unsafeBitCast(symbol, to: MallocOption.self)(-8, 1)
}
#endif

let status = await BeaconCtlRunner.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
