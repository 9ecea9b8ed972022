import BeaconCore
import BeaconTestKit
import Foundation
import ProcessTestKit
import Testing

@testable import BeaconCLI

#if canImport(Glibc)
import Glibc
#endif

@Suite("beaconctl calibrate --walk and receiver profiles")
struct CalibrateWalkTests {
    static let uuid = CalibrateCommandTests.uuid
    static let manifest = CalibrateCommandTests.manifest
    static let distances = [0.5, 1, 2, 3, 5]

    /// 20 s at 10 Hz at `distance` in a room with n = 2.5 where this receiver hears 3 dB
    /// below the beacon's measured power (−45), in whole dBm, with every fifth packet 15 dB
    /// down (a faded channel the level must ignore).
    static func spot(_ distance: Double, receiver: String = "hci0") -> String {
        let level = PathLossModel(pathLossExponent: 2.5).expectedRSSI(atDistance: distance, measuredPower: -48)
        return (0..<200).map { tick in
            let rssi = Int((level - (tick % 5 == 4 ? 15 : 0)).rounded())
            return #"{"uuid":"\#(uuid)","major":1,"minor":1,"measured_power":-45,"address":"C4:5B:BE:00:00:01","address_random":false,"rssi":\#(rssi),"time":\#(Double(tick) / 10),"receiver":"\#(receiver)"}"#
        }.joined(separator: "\n") + "\n"
    }

    struct Walk {
        var folder: String
        var manifest: String { folder + "/fleet.yaml" }
        var inputs: [String]
        var environment: [String: String] { ["XDG_CONFIG_HOME": folder + "/config", "HOME": folder] }
        var savedProfile: String { folder + "/config/beaconctl/ranging-profile.json" }
        var arguments: [String] {
            ["calibrate", "door", "--manifest", manifest, "--walk", "0.5,1,2,3,5"] + inputs.flatMap { ["--input", $0] }
        }
    }

    func makeWalk() throws -> Walk {
        let folder = NSTemporaryDirectory() + "walk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.manifest.write(toFile: folder + "/fleet.yaml", atomically: true, encoding: .utf8)
        var inputs: [String] = []
        for distance in Self.distances {
            let path = folder + "/spot-\(distance).jsonl"
            try Self.spot(distance).write(toFile: path, atomically: true, encoding: .utf8)
            inputs.append(path)
        }
        return Walk(folder: folder, inputs: inputs)
    }

    @Test("a walk from recordings: the spots, the fit, the residuals; the profile saved where scan finds it")
    func walksRecordings() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        let result = await runBeaconctl(walk.arguments, environment: walk.environment)
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "walk of door (\(Self.uuid)/1/1) heard by hci0: 5 spots")
        #expect(lines.count == 10, "\(result.output)")
        #expect(lines[1].contains("distance") && lines[1].contains("residual") && lines[1].contains("estimates"))
        #expect(lines[2].hasPrefix("  0.50 m"))
        #expect(result.output.contains("path-loss exponent n = 2.5"), "\(result.output)")
        #expect(result.output.contains("1 m level -47.9 dBm = the beacon's measured power -45 dBm -2.9 dB (this receiver's offset)"), "\(result.output)")
        #expect(result.output.contains("RMS residual 0.4 dB"), "\(result.output)")
        #expect(lines.last == "wrote the receiver profile to \(walk.savedProfile): scan and monitor --range use it from now on (--no-profile to range without it)")

        let profile = try JSONDecoder().decode(RangingProfile.self, from: Data(contentsOf: URL(fileURLWithPath: walk.savedProfile)))
        // Whole-dBm readings: each level is off by up to half a dB.
        #expect(abs(profile.pathLossExponent - 2.5) < 0.1)
        #expect(abs(profile.rssiOffset - -3) < 0.5)
        #expect(profile.receiver == "hci0")
        #expect(profile.residuals.count == 5)
        let text = try String(contentsOfFile: walk.savedProfile, encoding: .utf8)
        #expect(text.contains("\"path_loss_exponent\"") && text.contains("\"rssi_offset\"") && text.contains("\"level_rssi\""))

        // scan picks the profile up and ranges the 2 m recording back to about 2 m; without
        // it, on measured power alone with n = 2, the same readings say about 3. (The default
        // n = 3.5 happens to give 2 here too: this walk's n = 2.5 and −3 dB offset cancel at 2 m.)
        let withProfile = await runBeaconctl(
            ["scan", "--input", walk.inputs[2], "--format", "text", "--manifest", walk.manifest], environment: walk.environment)
        #expect(withProfile.status == 0, "\(withProfile.error)")
        #expect(withProfile.error.contains("ranging with the receiver profile \(walk.savedProfile) (fitted on hci0: n = 2.5"), "\(withProfile.error)")
        let without = await runBeaconctl(
            ["scan", "--input", walk.inputs[2], "--format", "text", "--manifest", walk.manifest, "--no-profile", "--path-loss-exponent", "2"],
            environment: walk.environment)
        #expect(without.status == 0)
        #expect(!without.error.contains("receiver profile"))
        #expect(try Self.distance(in: withProfile.output) > 1.8 && Self.distance(in: withProfile.output) < 2.2, "\(withProfile.output)")
        #expect(try Self.distance(in: without.output) > 2.6, "\(without.output)")

        // --profile writes elsewhere and says nothing about the default.
        let elsewhere = walk.folder + "/shop.json"
        let named = await runBeaconctl(walk.arguments + ["--profile", elsewhere, "--place", "shop floor"], environment: walk.environment)
        #expect(named.status == 0)
        #expect(named.output.hasSuffix("wrote the receiver profile to \(elsewhere)\n"))
        let placed = try JSONDecoder().decode(RangingProfile.self, from: Data(contentsOf: URL(fileURLWithPath: elsewhere)))
        #expect(placed.place == "shop floor")
    }

    /// The DISTANCE column of a one-beacon scan table, metres.
    static func distance(in table: String) throws -> Double {
        let row = try #require(table.split(separator: "\n").first { $0.hasPrefix(uuid) })
        let cells = row.split(separator: " ")
        let metres = try #require(cells.firstIndex(of: "m"))
        return try #require(Double(cells[metres - 1]))
    }

    @Test("a walk whose readings do not fall with distance writes nothing and says why")
    func flatWalkIsRefused() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        // Every spot the same recording: no slope.
        let flat = Walk(folder: walk.folder, inputs: Array(repeating: walk.inputs[1], count: 5))
        let result = await runBeaconctl(flat.arguments, environment: flat.environment)
        #expect(result.status == 1)
        #expect(result.error.contains("the walk gives no profile: the RSSI does not fall with distance"), "\(result.error)")
        #expect(result.output.contains("distance") && result.output.contains("level"))
        #expect(!FileManager.default.fileExists(atPath: flat.savedProfile))
    }

    @Test("the profile is replaced whole through the one atomic write: nothing left beside it, and a path it cannot replace says so")
    func profileWrite() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        let folder = walk.folder + "/profiles"
        let path = folder + "/shop.json"
        for place in ["first", "second"] {
            let result = await runBeaconctl(walk.arguments + ["--profile", path, "--place", place], environment: walk.environment)
            #expect(result.status == 0, "\(result.error)")
        }
        let written = try JSONDecoder().decode(RangingProfile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.place == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["shop.json"])

        // A folder where the profile would go: no rename can replace it.
        let occupied = folder + "/occupied.json"
        try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: false)
        let refused = await runBeaconctl(walk.arguments + ["--profile", occupied], environment: walk.environment)
        #expect(refused.status == 2)
        #expect(refused.error.contains("the ranging profile: cannot write \(occupied): "), "\(refused.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["occupied.json", "shop.json"])
    }

    @Test("a spot where the beacon was not heard names the spot")
    func unheardSpot() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        let empty = walk.folder + "/empty.jsonl"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        var inputs = walk.inputs
        inputs[3] = empty
        let result = await runBeaconctl(Walk(folder: walk.folder, inputs: inputs).arguments, environment: walk.environment)
        #expect(result.status == 1)
        #expect(result.error.contains("at 3.0 m: "), "\(result.error)")
        #expect(result.error.contains("no profile was written"))
    }

    @Test(arguments: [
        (["--walk", "1"], "--walk needs at least two different distances"),
        (["--walk", "1,1"], "--walk needs at least two different distances"),
        (["--walk", "0,1"], "--walk takes up to 20 distances in metres (0.1 to 100)"),
        (["--walk", "1,x"], "--walk takes up to 20 distances"),
        (["--walk", "1,2", "--input", "a"], "--walk has 2 distances but --input is given 1 time"),
        (["--walk", "1,2", "--write"], "--write records a beacon's 1 m value"),
        (["--walk", "1,2", "--input", "-", "--input", "-"], "--input - (standard input) can be read only once."),
        (["--input", "a", "--input", "b"], "--input is given 2 times"),
        (["--profile", "p.json"], "--profile belongs to --walk"),
        (["--place", "shop"], "--place belongs to --walk"),
    ])
    func walkUsageErrors(arguments: [String], message: String) async {
        let result = await runBeaconctl(["calibrate", "door", "--manifest", "f.yaml"] + arguments)
        #expect(result.status == 2)
        #expect(result.error.contains("Error: " + message), "\(result.error)")
    }

    @Test("a profile that is not one, or not usable, stops scan with the file and what to do")
    func badProfiles() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        let cases = [
            ("{\"path_loss_exponent\": 2}", "not a ranging profile (no `receiver`)"),
            ("not json", "not a ranging profile"),
            (#"{"receiver":"hci0","place":"","path_loss_exponent":40,"rssi_offset":0,"reference_measured_power":-59,"fitted_at":"","objective":"distance","rms_residual":0,"median_relative_distance_error":0,"residuals":[]}"#,
             "the ranging profile cannot be used: its path-loss exponent 40.0 is outside 1.0–8.0"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let path = walk.folder + "/bad-\(index).json"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let result = await runBeaconctl(["scan", "--input", walk.inputs[0], "--profile", path])
            #expect(result.status == 2)
            #expect(result.error.contains("\(path): \(message)"), "\(result.error)")
        }
        let missing = await runBeaconctl(["scan", "--input", walk.inputs[0], "--profile", walk.folder + "/none.json"])
        #expect(missing.status == 2)
        #expect(missing.error.contains("cannot open the ranging profile: No such file or directory"))
        let contradictory = await runBeaconctl(["scan", "--input", walk.inputs[0], "--profile", "x", "--no-profile"])
        #expect(contradictory.status == 2)
        #expect(contradictory.error.contains("--no-profile and --profile contradict each other"))
        let withoutRange = await runBeaconctl(["monitor", "--region", "r=\(Self.uuid)", "--input", walk.inputs[0], "--profile", "x"])
        #expect(withoutRange.status == 2)
        #expect(withoutRange.error.contains("--profile chooses how --range estimates distances; add --range or leave it out."), "\(withoutRange.error)")
    }

    @Test("monitor --range ranges with the saved profile")
    func monitorUsesTheProfile() async throws {
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        #expect(await runBeaconctl(walk.arguments, environment: walk.environment).status == 0)
        let result = await runBeaconctl(
            ["monitor", "--region", "r=\(Self.uuid)", "--input", walk.inputs[2], "--range", "--format", "jsonl"], environment: walk.environment)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("ranging with the receiver profile"))
        let distances = result.output.split(separator: "\n").compactMap { line -> Double? in
            guard let range = line.range(of: "\"accuracy\":") else { return nil }
            return Double(line[range.upperBound...].prefix { "0123456789.".contains($0) })
        }
        let last = try #require(distances.last, "\(result.output)")
        #expect(abs(last - 2) < 0.25, "\(result.output)")
    }

    @Test("live: each line on standard input starts a spot; input that ends early writes nothing", .timeLimit(.minutes(2)))
    func livePacing() async throws {
        let binary = try #require(CalibrateCommandTests.executable(), "build beaconctl first (`swift build`): this test runs it as a child process")
        let walk = try makeWalk()
        defer { try? FileManager.default.removeItem(atPath: walk.folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "calibrate", "door", "--manifest", walk.manifest, "--walk", "1,2", "--seconds", "1",
            "--hci", "virtual:walk-test@0,0", "--advertise-hci", "virtual:walk-test@1,0", "--profile", walk.folder + "/live.json",
            // The virtual controllers answer at once: a safety net, not the 2 s meant for hardware.
            "--command-timeout", "60",
        ]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let exit = try ChildProcessExit.run(process)
        // One spot's line, then end of input before the second.
        input.fileHandleForWriting.write(Data("\n".utf8))
        try input.fileHandleForWriting.close()
        let status = try await exit.wait(for: "calibrate ending at the end of its input")
        // What it wrote is all in the pipe once it exited. Read without waiting for the pipe's
        // end: a child another test spawned meanwhile may hold its write end, and a blocking
        // read would hold one of the cooperative pool's threads until that child exits.
        let descriptor = errors.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes += chunk[..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(status == .exited(1), "\(text)")
        #expect(text.contains("walk: 2 spots, 1 s each, on virtual:walk-test@0,0; each line on standard input starts the next spot"), "\(text)")
        #expect(text.contains("spot 1 of 2: stand 1.0 m from door, both still"))
        #expect(text.contains("spot 2 of 2: stand 2.0 m from door, both still"))
        #expect(text.contains("standard input ended before spot 2 of 2 (2.0 m from door); no profile was written"))
        #expect(!FileManager.default.fileExists(atPath: walk.folder + "/live.json"))
    }
}
