import BeaconCore
import CryptoPrimitives

/// The beacon's side of KKM's configuration protocol on characteristic 0xFEA1 (written by
/// the central) and 0xFEA2 (notified), as the vendor's MIT-licensed SDK drives it from the
/// central (kkmhogen/android_kbeaconlib2):
///
/// - KBAuthHandler.java: the central writes `13 01 R4` (its 4-byte random); the beacon
///   answers `13 01 B4 MD5(addr | A9 B1 | R4 | password)`, or `13 0B B4 fold8(…)` when a
///   notification cannot carry 22 bytes; the central proves itself with
///   `13 02 MD5(addr | A9 B1 | B4 | password)` (`13 0C` folded); the beacon says `13 02 MTU`,
///   or `13 F1` when the proof is wrong or it is locked. `addr` is the beacon's address,
///   least significant byte first; fold8 XORs the digest's halves.
/// - KBeacon.java: a JSON message in parts `[0x20 | place][offset u16 BE][bytes]` (place 0
///   first, 1 middle, 2 last, 3 whole), each acknowledged by `23 offset window cause [data]`
///   (all u16 big-endian); an answer too long for the acknowledgement follows in report
///   parts `[0x31 | 0x32 last][offset u16][bytes]`, each acknowledged by the central with
///   `33 received window cause`.
///
/// A failed attempt is a wrong proof, or a challenge left unanswered when the link ends or
/// another challenge comes (a central that found the beacon's proof did not match its
/// password stops there, and the beacon's proof let it test a guess). After
/// `attemptsBeforeLockOut` failed attempts the beacon refuses every authentication until
/// it is restarted: the virtual beacon's lock-out against guessing.
struct KBeaconFirmware: Sendable {
    static let authenticationFactor: [UInt8] = [0xA9, 0xB1]
    /// The receive window the beacon announces in its acknowledgements.
    static let window: UInt16 = 1000
    /// A message longer than this is dropped unread (bounded memory; the SDK's messages are
    /// a few hundred bytes).
    static let maximumMessageLength = 4096

    var state: KBeaconState
    let address: BluetoothAddress
    let attemptsBeforeLockOut: Int
    private(set) var failedAttempts = 0
    private(set) var lockedOut = false
    private var generator: SeededGenerator

    // Per link.
    private(set) var authenticated = false
    private var beaconRandom: [UInt8]?
    private var folded = false
    private var incoming: [UInt8] = []
    private var outgoing: [UInt8] = []

    init(state: KBeaconState, address: BluetoothAddress, attemptsBeforeLockOut: Int, seed: UInt64) {
        self.state = state
        self.address = address
        self.attemptsBeforeLockOut = max(1, attemptsBeforeLockOut)
        generator = SeededGenerator(seed: seed)
    }

    /// A new link, or the end of one: nothing of the session is kept; a challenge left
    /// unanswered counts as a failed attempt.
    mutating func startSession() {
        if beaconRandom != nil { countFailedAttempt() }
        authenticated = false
        beaconRandom = nil
        folded = false
        incoming = []
        outgoing = []
    }

    /// One write to 0xFEA1; returns the notifications to send on 0xFEA2, each at most
    /// `frameLength` (ATT_MTU − 3) bytes.
    mutating func write(_ value: [UInt8], frameLength: Int, mtu: Int) -> [[UInt8]] {
        guard let first = value.first else { return [] }
        switch first >> 4 {
        case 1: return authenticate(value, frameLength: frameLength, mtu: mtu)
        case 2: return receivePart(value, frameLength: frameLength)
        case 3: return reportAcknowledged(value, frameLength: frameLength)
        default: return []
        }
    }

    // MARK: Authentication

    private mutating func authenticate(_ value: [UInt8], frameLength: Int, mtu: Int) -> [[UInt8]] {
        guard value.count >= 2 else { return [] }
        let refused: [[UInt8]] = [[0x13, 0xF1]]
        switch value[1] {
        case 0x01 where value.count >= 6:
            authenticated = false
            if beaconRandom != nil { countFailedAttempt() }
            beaconRandom = nil
            guard !lockedOut else { return refused }
            let random = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard let proof = digest(Array(value[2..<6])) else { return refused }
            beaconRandom = random
            // The whole answer is 22 bytes: folded when a notification cannot carry it.
            folded = frameLength < 22
            return folded ? [[0x13, 0x0B] + random + Self.fold(proof)] : [[0x13, 0x01] + random + proof]
        case 0x02, 0x0C:
            guard let random = beaconRandom, !lockedOut else { return refused }
            beaconRandom = nil
            let phase: UInt8 = folded ? 0x0C : 0x02
            if value[1] == phase, let expected = digest(random).map({ folded ? Self.fold($0) : $0 }), Array(value[2...]) == expected {
                authenticated = true
                return [[0x13, 0x02, UInt8(min(mtu, 255))]]
            }
            countFailedAttempt()
            return refused
        default:
            return []
        }
    }

    private mutating func countFailedAttempt() {
        failedAttempts += 1
        if failedAttempts >= attemptsBeforeLockOut { lockedOut = true }
    }

    /// MD5(address LSB first | A9 B1 | random | password).
    private func digest(_ random: [UInt8]) -> [UInt8]? {
        Cryptography.md5(address.littleEndianBytes + Self.authenticationFactor + random + Array(state.password.utf8))
    }

    static func fold(_ digest: [UInt8]) -> [UInt8] {
        (0..<8).map { digest[$0] ^ digest[$0 + 8] }
    }

    // MARK: Messages

    private func acknowledgement(_ offset: Int, _ cause: KBeaconMessages.Cause, _ data: [UInt8] = []) -> [UInt8] {
        let offset = UInt16(clamping: offset)
        return [0x23, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(Self.window >> 8), UInt8(Self.window & 0xFF), 0x00, UInt8(cause.rawValue)]
            + data
    }

    private mutating func receivePart(_ value: [UInt8], frameLength: Int) -> [[UInt8]] {
        guard authenticated else { return [acknowledgement(0, .notAuthenticated)] }
        guard value.count >= 3 else { return [acknowledgement(incoming.count, .sendFromOffset)] }
        let place = value[0] & 0x0F
        let offset = Int(value[1]) << 8 | Int(value[2])
        if place == 0 || place == 3 { incoming = [] }
        guard offset == incoming.count else { return [acknowledgement(incoming.count, .sendFromOffset)] }
        guard incoming.count + value.count - 3 <= Self.maximumMessageLength else {
            incoming = []
            return [acknowledgement(0, .notUnderstood)]
        }
        incoming += value[3...]
        if place == 0 || place == 1 { return [acknowledgement(incoming.count, .sendFromOffset)] }
        let message = incoming
        incoming = []
        switch KBeaconMessages.handle(message, state: &state) {
        case .acknowledged(let cause):
            return [acknowledgement(0, cause)]
        case .answer(let body):
            let room = max(frameLength - 7, 1)
            guard body.count > room else { return [acknowledgement(body.count, .done, body)] }
            // Too long for one acknowledgement: its first part now, the rest as reports.
            outgoing = body
            return [acknowledgement(room, .answerFollows, Array(body[..<room]))]
        }
    }

    private mutating func reportAcknowledged(_ value: [UInt8], frameLength: Int) -> [[UInt8]] {
        guard value.count >= 7, !outgoing.isEmpty else { return [] }
        let received = Int(value[1]) << 8 | Int(value[2])
        guard received < outgoing.count else {
            outgoing = []
            return []
        }
        let room = max(frameLength - 3, 1)
        let end = min(received + room, outgoing.count)
        let last = end >= outgoing.count
        let offset = UInt16(clamping: received)
        return [[last ? 0x32 : 0x31, UInt8(offset >> 8), UInt8(offset & 0xFF)] + outgoing[received..<end]]
    }
}
