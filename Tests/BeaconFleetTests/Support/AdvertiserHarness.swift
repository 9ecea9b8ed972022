import BeaconTestKit
import BeaconCore
import ClockTestKit
import FleetManifest
import HCI
import HCITransports
import Logging
import Synchronization

@testable import BeaconFleet

/// A running `BeaconAdvertiser` wired to scripted controllers, and what it reported.
struct AdvertiserRun {
    let task: Task<Result<StopReason, AdvertisingError>, Never>
    let recorder: EventRecorder

    /// Cancels the run, as SIGINT does in the command, and waits for it to end.
    func stop() async -> Result<StopReason, AdvertisingError> {
        task.cancel()
        return await task.value
    }
}

/// How long the advertiser's host waits for an answer before a command fails. The scripted
/// controllers answer every command they are not told to leave unanswered, so this is a
/// safety net that no load reaches; tests of unanswered commands pass a shorter one.
let generousCommandTimeout: Duration = .seconds(60)

/// The name scripted controllers get unless a test needs another: a spec of an exclusive
/// transport, so that the code under test resets the controller and sets its masks.
let exclusiveTestSpec = "tcp-client:127.0.0.1:6402"

/// Starts an advertiser on `controllers`: the first open gets the first controller, a
/// re-open after a dropped link the next one. On a shared spec (`hci0`) the kernel's
/// management interface is played by `occupiedSets` (by default: bluetoothd holds no set).
func startAdvertiser(
    on controllers: [ScriptedController], spec: String = "tcp-client:127.0.0.1:6402",
    requests: [AdvertisingRequest], family: AdvertisingFamilyChoice = .auto, rotationSlot: Duration? = nil,
    restart: RestartPolicy? = nil, duration: Duration? = nil, commandTimeout: Duration = generousCommandTimeout,
    occupiedSets: @escaping OccupiedAdvertisingSetsReader = { _ in OccupiedAdvertisingSets(instances: []) },
    clock: any Clock<Duration> = ContinuousClock()
) throws -> AdvertiserRun {
    let transportSpec = try HCITransportSpec(parsing: spec)
    let queue = Mutex(controllers)
    let recorder = EventRecorder()
    let configuration = AdvertiserConfiguration(
        requests: requests, family: family, rotationSlot: rotationSlot, restart: restart,
        commandTimeout: commandTimeout, duration: duration)
    var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    logger.logLevel = .critical
    let advertiser = BeaconAdvertiser(
        controller: transportSpec, configuration: configuration, logger: logger,
        openTransport: { () async throws(HCITransportError) -> any HCITransport in
            let next: ScriptedController? = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else {
                throw HCITransportError(.connectFailed, "\(spec): no more scripted controllers")
            }
            return next.hostEnd
        },
        readOccupiedSets: occupiedSets, clock: clock)
    let task = Task { () -> Result<StopReason, AdvertisingError> in
        do throws(AdvertisingError) {
            return .success(try await advertiser.run { recorder.record($0) })
        } catch {
            return .failure(error)
        }
    }
    return AdvertiserRun(task: task, recorder: recorder)
}

/// Waits until the advertiser has announced its `retry`th retry (an interruption or a failed
/// attempt with a delay) and sleeps on `clock` for it: nothing else sleeps on the clock then,
/// since no command is in flight between a session's stop sequence and the next attempt.
/// Lets that backoff pass, and returns how long it was.
@discardableResult
func passBackoff(_ retry: Int, of run: AdvertiserRun, on clock: TestClock) async throws -> Duration {
    try await run.recorder.waitForRetries(retry)
    try await clock.sleepers(atLeast: 1)
    guard let wake = clock.nextDeadline else { throw TestFailure("no backoff on the clock") }
    let backoff = clock.now.duration(to: wake)
    clock.advance(to: wake)
    return backoff
}

let fleetUUID = ProximityUUID(high: 0x89D6_E936_F61F_4227, low: 0xBCD2_6E94_C5A6_B2E3)

func identity(major: UInt16 = 1, minor: UInt16) -> BeaconIdentity {
    BeaconIdentity(uuid: fleetUUID, major: major, minor: minor)
}

func request(
    minor: UInt16, id: String? = nil, measuredPower: MeasuredPower = .auto, intervalUnits: UInt32 = 160, txPower: Int8 = 0
) -> AdvertisingRequest {
    AdvertisingRequest(
        beaconID: id, identity: identity(minor: minor), measuredPower: measuredPower,
        interval: AdvertisingInterval(units: intervalUnits) ?? .beaconDefault, txPower: txPower)
}

/// The packet a host sends for `command`, to compare with what the controller received.
func packet(_ command: some HCICommand) throws -> HCICommandPacket {
    try HCICommandPacket(command)
}

/// The bring-up every exclusive transport gets, before the advertising commands.
func exclusiveBringUp() throws -> [HCICommandPacket] {
    [
        try packet(Reset()), try packet(SetEventMask(mask: .beaconHost)), try packet(LESetEventMask(mask: .beaconHost)),
        try packet(ReadLocalVersionInformation()), try packet(ReadBDADDR()), try packet(LEReadLocalSupportedFeatures()),
    ]
}

func names(_ packets: [HCICommandPacket]) -> [String] {
    packets.map(\.opcode.displayName)
}
