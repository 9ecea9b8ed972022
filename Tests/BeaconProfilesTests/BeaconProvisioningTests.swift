import BeaconCore
import LECentral
import Testing

@testable import BeaconProfiles

/// The order `BeaconProvisioning` keeps, on a scripted profile: one attempt, nothing after a
/// refusal, only differing fields written, a read-back compared, the password last.
@Suite("Provisioning through a profile")
struct BeaconProvisioningTests {
    static let uuid = ProximityUUID(high: 1, low: 2)
    static let held = BeaconSettings(uuid: uuid, major: 1, minor: 2, measuredPower: -59, txPower: 0, advertisingInterval: 1000)

    @Test("only the differing fields are written, read back, and then the password changes")
    func writesDifferences() async throws {
        let profile = ScriptedProfile(holding: Self.held)
        var target = Self.held
        target.minor = 9
        target.measuredPower = -61
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("a"), target: target, newPassword: BeaconPassword("b"))
        guard case .provisioned(let report) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(report.written == [.minor, .measuredPower])
        #expect(report.after.settings == target)
        #expect(report.passwordChanged)
        #expect(await profile.steps == ["authenticate", "read", "write minor,measured-power", "read", "password"])
    }

    @Test("a beacon already right: read once, nothing written; the same password is not set again")
    func alreadyRight() async throws {
        let profile = ScriptedProfile(holding: Self.held)
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("a"), target: Self.held, newPassword: BeaconPassword("a"))
        guard case .provisioned(let report) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(report.written.isEmpty)
        #expect(!report.passwordChanged)
        #expect(await profile.steps == ["authenticate", "read"])
    }

    @Test("a review that stops after the read: the differences reported, nothing written, no password change")
    func reviewStops() async throws {
        let profile = ScriptedProfile(holding: Self.held)
        var target = Self.held
        target.major = 7
        let outcome = try await BeaconProvisioning.run(
            profile, password: BeaconPassword("a"), target: target, newPassword: BeaconPassword("b")
        ) { reading, fields in
            reading.settings == Self.held && fields == [.major] ? .stop("dry run") : .proceed
        }
        #expect(outcome == .stopped(StoppedProvisioning(reading: BeaconReading(settings: Self.held), differences: [.major], reason: "dry run")))
        #expect(await profile.steps == ["authenticate", "read"])
    }

    @Test("a refusal ends it: nothing read, written or changed")
    func refusal() async throws {
        let profile = ScriptedProfile(holding: Self.held, refusal: .passwordMismatch)
        let outcome = try await BeaconProvisioning.run(profile, password: BeaconPassword("a"), target: BeaconSettings(major: 5), newPassword: BeaconPassword("b"))
        #expect(outcome == .refused(.passwordMismatch))
        #expect(await profile.steps == ["authenticate"])
    }

    @Test("a new password the beacon would not take is refused before the password is tried")
    func unusableNewPassword() async throws {
        let profile = ScriptedProfile(holding: Self.held, rejectsB: true)
        await #expect(throws: BeaconProfileError(context: "scripted", kind: .invalidPassword("too short"))) {
            try await BeaconProvisioning.run(profile, password: BeaconPassword("a"), target: Self.held, newPassword: BeaconPassword("b"))
        }
        #expect(await profile.steps.isEmpty)
    }

    @Test("a value the beacon silently changes is reported, and the password is left as it was")
    func notApplied() async throws {
        let profile = ScriptedProfile(holding: Self.held, roundsInterval: true)
        var target = Self.held
        target.advertisingInterval = 333
        await #expect(throws: BeaconProfileError(context: "scripted", kind: .notApplied([.advertisingInterval]))) {
            try await BeaconProvisioning.run(profile, password: BeaconPassword("a"), target: target, newPassword: BeaconPassword("b"))
        }
        #expect(await profile.steps.last == "read")
    }

    @Test("KBeacons are recognised by KKM's manufacturer data or their 0x2080 service data, and by service 0xFEA0")
    func recognition() {
        #expect(KBeaconProfile.recognises(advertising: [ADStructure(type: 0xFF, data: [0x53, 0x0A, 0x22])]))
        #expect(KBeaconProfile.recognises(advertising: [ADStructure(type: 0x16, data: [0x80, 0x20, 93])]))
        #expect(!KBeaconProfile.recognises(advertising: [ADStructure(type: 0xFF, data: [0x4C, 0x00, 0x02, 0x15])]))
        #expect(!KBeaconProfile.recognises(advertising: [ADStructure(type: 0x16, data: [0x80])]))
        #expect(KBeaconProfile.recognises(services: [GATTService(uuid: AttributeUUID(0xFEA0), handle: 1, endHandle: 5)]))
        #expect(!KBeaconProfile.recognises(services: [GATTService(uuid: AttributeUUID(0x180F), handle: 1, endHandle: 5)]))
    }
}

/// A profile that holds settings in memory and records the steps asked of it.
actor ScriptedProfile: BeaconProfile {
    nonisolated let name = "scripted"
    nonisolated let context = "scripted"
    nonisolated let writableFields = Set(BeaconField.allCases)
    private var held: BeaconSettings
    private let refusal: AuthenticationRefusal?
    private let roundsInterval: Bool
    private let rejectsB: Bool
    private(set) var steps: [String] = []

    init(holding held: BeaconSettings, refusal: AuthenticationRefusal? = nil, roundsInterval: Bool = false, rejectsB: Bool = false) {
        self.held = held
        self.rejectsB = rejectsB
        self.refusal = refusal
        self.roundsInterval = roundsInterval
    }

    func authenticate(_ password: BeaconPassword) async throws(BeaconProfileError) -> AuthenticationOutcome {
        steps.append("authenticate")
        return refusal.map { .refused($0) } ?? .accepted
    }

    func read() async throws(BeaconProfileError) -> BeaconReading {
        steps.append("read")
        return BeaconReading(settings: held)
    }

    func write(_ fields: [BeaconField], of target: BeaconSettings, current: BeaconReading) async throws(BeaconProfileError) {
        steps.append("write \(fields.map(\.rawValue).joined(separator: ","))")
        for field in fields {
            switch field {
            case .uuid: held.uuid = target.uuid
            case .major: held.major = target.major
            case .minor: held.minor = target.minor
            case .measuredPower: held.measuredPower = target.measuredPower
            case .txPower: held.txPower = target.txPower
            case .advertisingInterval: held.advertisingInterval = target.advertisingInterval.map { roundsInterval ? $0 / 10 * 10 : $0 }
            }
        }
    }

    func changePassword(to newPassword: BeaconPassword) async throws(BeaconProfileError) {
        steps.append("password")
    }

    nonisolated func problem(with password: BeaconPassword) -> String? {
        password == BeaconPassword("b") && rejectsB ? "too short" : nil
    }
}
