import BeaconCore
import BeaconFleet
import FleetManifest

/// libFuzzer entry: a receiver's answer on the broker, as `gateways configure` reads it back.
///
/// The first byte picks the gateway (ESPresense or OpenMQTTGateway) and whether the message
/// was retained; the text up to the first newline is the topic and the rest the payload.
/// Reading must not trap, must confirm only receivers it can name, and must keep `expected`
/// within what it was told; a receiver is never both confirmed and differing. Built by
/// scripts/fuzz.sh; not part of the SwiftPM package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let selector = bytes.first else { return 0 }
    let rest = bytes.dropFirst()
    let newline = rest.firstIndex(of: 0x0A) ?? rest.endIndex
    let topic = String(decoding: rest[..<newline], as: UTF8.self)
    let payload = Array(rest[newline...].dropFirst())
    let kind: GatewayKeepList.Kind = selector & 1 == 0 ? .espresense : .openMQTTGateway
    guard let list = try? GatewayKeepList(kind, beacons: fuzzBeacons),
          let configuration = try? GatewayConfiguration(list: list, base: nil, receivers: selector & 4 == 0 ? [] : ["kitchen"])
    else { fatalError("the keep-list of a fixed fleet was refused") }
    var readBack = GatewayConfiguration.ReadBack()
    configuration.read(topic: topic, payload: payload, retained: selector & 2 != 0, into: &readBack)
    configuration.read(topic: topic, payload: payload, retained: false, into: &readBack)
    for receiver in readBack.confirmed where readBack.differing[receiver] != nil {
        fatalError("\(receiver) is both confirmed and differing")
    }
    for receiver in readBack.confirmed.union(readBack.online) where receiver.contains("/") {
        fatalError("a receiver named with a topic separator: \(receiver)")
    }
    if !configuration.receivers.isEmpty, configuration.expected(readBack) != configuration.receivers {
        fatalError("named receivers were not the ones expected")
    }
    return 0
}

/// One beacon with an address, for both kinds of list.
private let fuzzBeacons: [ResolvedBeacon] = {
    let manifest = """
        version: 1
        fleet: fuzz
        uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
        venues:
          - id: flat
            major: 7
            beacons:
              - {id: keys, minor: 1, mac: "C4:5B:BE:00:00:01"}
        """
    return ManifestLoader.load(sources: [("fuzz.yaml", Array(manifest.utf8))]).fleet.beacons
}()
