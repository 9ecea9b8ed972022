import BeaconCore
import BeaconFleet
import HCI

/// A bare passive scanner for the verification tests: Reset, event masks, legacy scan
/// parameters (10 ms window every 10 ms: always listening), enable without duplicate
/// filtering, then every iBeacon in the LE Advertising Reports as a sighting stamped on a
/// monotonic clock. The stream ends (and the controller closes) when its consumer stops.
enum VerifyTestListener {
    static func listen(_ spec: HCITransportSpec) -> AsyncThrowingStream<Sighting, any Error> {
        AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
            let task = Task {
                var host: HostController?
                do {
                    let transport = try await ControllerTransports.open(spec)
                    let controller = HostController(transport: transport, defaultTimeout: .seconds(5))
                    host = controller
                    let events = await controller.events(bufferSize: 16_384)
                    try await controller.send(Reset())
                    try await controller.send(SetEventMask(mask: .beaconHost))
                    try await controller.send(LESetEventMask(mask: [.advertisingReport]))
                    let always = try ScanInterval(milliseconds: 10)
                    try await controller.send(LESetScanParameters(interval: always, window: always))
                    try await controller.send(LESetScanEnable(true, filterDuplicates: false))
                    let start = ContinuousClock.now
                    for await event in events {
                        switch event {
                        case .event(.le(.advertisingReport(let reports))):
                            let time = (ContinuousClock.now - start) / .seconds(1)
                            for report in reports {
                                guard let beacon = IBeaconAdvertisement(advertisingData: report.data) else { continue }
                                continuation.yield(Sighting(
                                    advertisement: beacon, address: report.address.description,
                                    addressIsRandom: report.addressType == .random, rssi: report.rssi.map(Int.init),
                                    time: time, receiver: spec.description))
                            }
                        case .transportEnded(let error?):
                            throw error
                        default:
                            continue
                        }
                    }
                    await controller.close()
                    continuation.finish()
                } catch {
                    await host?.close()
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
