// swift-tools-version: 6.2
import PackageDescription

// Every target of ours is built in Swift 6 language mode (strict concurrency) and
// any warning fails the build: the bar is "no warnings", enforced rather than hoped for.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "beaconctl",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "beaconctl", targets: ["beaconctl"]),
        .library(name: "BeaconCore", targets: ["BeaconCore"]),
        .library(name: "YAMLDocument", targets: ["YAMLDocument"]),
        .library(name: "FleetManifest", targets: ["FleetManifest"]),
        .library(name: "HCI", targets: ["HCI"]),
        .library(name: "HCITransports", targets: ["HCITransports"]),
        .library(name: "LECentral", targets: ["LECentral"]),
        .library(name: "LECentralLinux", targets: ["LECentralLinux"]),
        .library(name: "BeaconProfiles", targets: ["BeaconProfiles"]),
        .library(name: "VirtualRadio", targets: ["VirtualRadio"]),
        .library(name: "VirtualBeacons", targets: ["VirtualBeacons"]),
        .library(name: "BeaconFleet", targets: ["BeaconFleet"]),
        .library(name: "BeaconPlatform", targets: ["BeaconPlatform"]),
        .library(name: "BeaconTestKit", targets: ["BeaconTestKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        // System libraries: libyaml for the manifest, libbluetooth for kernel sockets.
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(
            name: "CBlueZ", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        // libmosquitto, the MQTT client of the Mosquitto project, for fleet-wide sightings, and
        // the OpenSSL it uses for TLS (checking TLS files, reading why a handshake failed).
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev", "libssl-dev"])]),
        // OpenSSL's libcrypto alone (Debian: libssl-dev), for the digests and ciphers vendor
        // beacons authenticate with (MD5, AES-128), without libmosquitto.
        .systemLibrary(
            name: "CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        // Identity, frames, regions, ranging maths: no I/O, no dependencies.
        .target(name: "BeaconCore", swiftSettings: strict),
        // The one home for YAML: libyaml's events with positions, how a scalar's text and style
        // type it, a node tree and strict mappings for small documents (configuration profiles).
        .target(name: "YAMLDocument", dependencies: ["CYAML", "BeaconCore"], swiftSettings: strict),
        // YAML → fleet model with source locations, validation, export/import.
        .target(name: "FleetManifest", dependencies: ["BeaconCore", "YAMLDocument"], swiftSettings: strict),
        // The HCI protocol: packets, commands, events, H4 framing, the host-controller actor,
        // the btsnoop format. No I/O.
        .target(name: "HCI", dependencies: ["BeaconCore"], swiftSettings: strict),
        // Transports: POSIX descriptors, TCP, serial, btsnoop files and snooping, transport specs.
        .target(name: "HCITransports", dependencies: ["BeaconCore", "HCI"], swiftSettings: strict),
        // An LE central on the host stack above HCI: connections, L2CAP over ACL, an ATT/GATT
        // client. No I/O of its own (it drives a HostController), no manifests, no command line.
        .target(name: "LECentral", dependencies: ["BeaconCore", "HCI"], swiftSettings: strict),
        // Vendor configuration profiles above the central: recognise a beacon, authenticate
        // once, read what it holds, write only what differs, change its password, read back.
        // No manifests, no command line.
        // OpenSSL's digests and ciphers that device protocols need (MD5, AES-128), for the
        // profiles and the virtual radio's beacons alike: one home for libcrypto calls.
        .target(name: "CryptoPrimitives", dependencies: ["CLibCrypto"], swiftSettings: strict),
        .target(name: "BeaconProfiles", dependencies: ["BeaconCore", "CryptoPrimitives", "HCI", "LECentral", "YAMLDocument"], swiftSettings: strict),
        // Linux kernel HCI sockets (RAW and USER channels) behind a syscall seam.
        .target(name: "HCILinux", dependencies: ["BeaconCore", "HCI", "HCITransports", "CBlueZ"], swiftSettings: strict),
        // The LE central's ATT bearer through the Linux kernel (an L2CAP socket on the ATT
        // channel), for controllers the kernel owns: beside LECentral and HCILinux, so that
        // neither needs the other.
        .target(
            name: "LECentralLinux", dependencies: ["BeaconCore", "CBlueZ", "HCI", "HCILinux", "HCITransports", "LECentral"],
            swiftSettings: strict),
        // MQTT on libmosquitto: broker URLs, credentials, a client with reconnection and QoS 1.
        .target(name: "BeaconMQTT", dependencies: ["CMosquitto"], swiftSettings: strict),
        // Prometheus's text exposition and the small HTTP responder that serves it (--metrics).
        .target(name: "MetricsExposition", swiftSettings: strict),
        // The built-in virtual radio: controllers speaking HCI on a simulated air.
        .target(name: "VirtualRadio", dependencies: ["HCI", "BeaconCore"], swiftSettings: strict),
        // Battery beacons for the virtual radio: a KBeacon's GATT server and KKM's protocol,
        // written from the vendor's SDK (its JSON and MD5 kept out of VirtualRadio).
        .target(
            name: "VirtualBeacons", dependencies: ["BeaconCore", "CryptoPrimitives", "HCI", "LECentral", "VirtualRadio"],
            swiftSettings: strict),
        // Use cases, a folder each: advertise, scan, verify and the watch, monitor, calibrate,
        // provision, plan, decode, controllers; and what goes through an MQTT broker. They reach
        // controllers through the protocols only (HCITransport, `ControllerPlatform`): no kernel
        // socket, no virtual radio.
        .target(
            name: "BeaconFleet",
            dependencies: [
                "BeaconCore", "FleetManifest", "HCI", "HCITransports", "BeaconMQTT", "LECentral", "BeaconProfiles",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The concrete transports wired for the use cases (as NIOPosix beside NIOCore): kernel
        // sockets, TCP, serial and the virtual radio opened by spec, the kernel's controller list
        // and management interface, its ATT connections (`SystemPlatform`), and a fleet laid out
        // on a virtual air (`VirtualScenario`). The command line and the benchmarks hand it down.
        .target(
            name: "BeaconPlatform",
            dependencies: [
                "BeaconCore", "BeaconFleet", "FleetManifest", "HCI", "HCITransports", "HCILinux", "LECentral", "LECentralLinux",
                "VirtualRadio", "VirtualBeacons",
            ],
            swiftSettings: strict),
        // The command line: argument parsing, output formatting, logging setup.
        .target(
            name: "BeaconCLI",
            dependencies: [
                "BeaconCore", "BeaconFleet", "BeaconPlatform", "FleetManifest", "HCI", "HCITransports", "BeaconMQTT", "MetricsExposition",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(name: "beaconctl", dependencies: ["BeaconCLI"], swiftSettings: strict),
        // For tests, by what they are about. Time a test moves by hand and states it waits on
        // (`TestClock`, `WatchedState`): no Bluetooth in it.
        .target(name: "ClockTestKit", swiftSettings: strict),
        // Text with positions marked in it (`⟨code⟩`), for tests that assert where a
        // diagnostic points: manifests and profile files alike.
        .target(name: "MarkedTextTestKit", swiftSettings: strict),
        // Child processes a test starts, waits for and signals.
        .target(name: "ProcessTestKit", dependencies: ["ClockTestKit"], swiftSettings: strict),
        // Tests at the HCI layer (as NIOEmbedded serves NIOCore): an in-memory link, a
        // scripted controller, a TCP endpoint for it, H4 peers. It needs the HCI protocol and
        // its transports only (no libyaml, libmosquitto or BlueZ).
        .target(name: "HCITestKit", dependencies: ["BeaconCore", "ClockTestKit", "HCI", "HCITransports"], swiftSettings: strict),
        // For tests of the use cases above it: the virtual-time bench, verification scripts,
        // manifest fixtures; it carries the HCI kit along.
        .target(
            name: "BeaconTestKit",
            dependencies: [
                "BeaconCore", "BeaconFleet", "BeaconPlatform", "ClockTestKit", "HCI", "HCITestKit", "HCITransports", "VirtualRadio",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The kernel lane's bridge: one RootCanal controller (H4 over TCP) as a kernel hciN via /dev/vhci.
        .executableTarget(name: "vhci-bridge", dependencies: ["HCI", "HCITransports"], swiftSettings: strict),
        // What the benchmarks share: a measurement in a fresh child process, its peak memory;
        // child processes (a broker, RootCanal, Bumble) started, watched and stopped.
        .target(name: "BenchmarkSupport", swiftSettings: strict),
        // Release-built benchmark: manifest load+validate against libyaml's bare event parse.
        .executableTarget(
            name: "manifest-benchmark",
            dependencies: [
                "BenchmarkSupport", "BeaconCore", "FleetManifest", "CYAML", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Release-built benchmark: simulated advertising events per second of wall time.
        .executableTarget(
            name: "radio-benchmark",
            dependencies: [
                "BeaconCore", "HCI", "VirtualRadio", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // Release-built benchmark: ranging accuracy against simulated ground truth.
        .executableTarget(
            name: "ranging-benchmark",
            dependencies: [
                "BeaconCore", "BeaconFleet", "BeaconTestKit", "VirtualRadio", "RangingEvaluation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // Estimators side by side on recordings at known distances (the ranging benchmark's
        // real-data half and its tests); not part of the shipped tool.
        .target(name: "RangingEvaluation", dependencies: ["BeaconCore"], swiftSettings: strict),

        // Release-built benchmark: battery beacons provisioned and verified per minute, Bumble
        // KBeacons on RootCanal, against the connections alone.
        .executableTarget(
            name: "provision-benchmark",
            dependencies: [
                "BenchmarkSupport", "BeaconCore", "BeaconFleet", "BeaconPlatform", "BeaconProfiles", "FleetManifest", "HCI", "HCITransports",
                "LECentral",
                .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // Release-built benchmark: recorded sightings per second through verify --input's path,
        // and the watch under a live load through a broker (--broker-flood).
        .executableTarget(
            name: "ingest-benchmark", dependencies: ["BenchmarkSupport", "BeaconCore", "BeaconFleet", "BeaconMQTT"], swiftSettings: strict),

        .testTarget(name: "BeaconCoreTests", dependencies: ["BeaconCore"], swiftSettings: strict),
        .testTarget(name: "MetricsExpositionTests", dependencies: ["MetricsExposition"], swiftSettings: strict),
        .testTarget(name: "RangingEvaluationTests", dependencies: ["BeaconCore", "RangingEvaluation"], swiftSettings: strict),
        .testTarget(
            name: "FleetManifestTests", dependencies: ["BeaconCore", "FleetManifest", "HCITestKit", "MarkedTextTestKit", "ProcessTestKit", "YAMLDocument"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        // BeaconMQTT's own units (URLs, credentials, TLS settings, wording): no broker needed.
        .testTarget(name: "BeaconMQTTTests", dependencies: ["BeaconMQTT"], swiftSettings: strict),
        .testTarget(name: "HCITests", dependencies: ["ClockTestKit", "HCITestKit", "HCI", "HCITransports"], swiftSettings: strict),
        .testTarget(name: "LECentralTests", dependencies: ["BeaconCore", "ClockTestKit", "HCI", "HCITestKit", "LECentral"], swiftSettings: strict),
        .testTarget(
            name: "BeaconProfilesTests",
            dependencies: ["BeaconCore", "BeaconProfiles", "ClockTestKit", "CryptoPrimitives", "HCI", "HCITestKit", "LECentral", "MarkedTextTestKit", "YAMLDocument"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "HCITransportsTests", dependencies: ["ClockTestKit", "HCITestKit", "HCI", "HCITransports"], swiftSettings: strict),
        .testTarget(
            name: "VirtualRadioTests", dependencies: ["BeaconCore", "CryptoPrimitives", "HCI", "LECentral", "VirtualRadio", "VirtualBeacons"], swiftSettings: strict),
        .testTarget(
            name: "LECentralLinuxTests", dependencies: ["BeaconCore", "CBlueZ", "HCI", "HCITransports", "LECentral", "LECentralLinux"],
            swiftSettings: strict),
        .testTarget(name: "HCILinuxTests", dependencies: ["BeaconCore", "CBlueZ", "ClockTestKit", "HCI", "HCITestKit", "HCITransports", "HCILinux"], swiftSettings: strict),
        .testTarget(
            name: "BeaconFleetTests",
            dependencies: [
                "BeaconCore", "BeaconFleet", "BeaconPlatform", "BeaconProfiles", "BeaconTestKit", "ClockTestKit", "FleetManifest", "HCI",
                "HCITransports", "LECentral", "VirtualRadio",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "BeaconCLITests",
            dependencies: [
                "BeaconCLI", "BeaconCore", "BeaconFleet", "BeaconMQTT", "BeaconPlatform", "BeaconProfiles", "BeaconTestKit", "ClockTestKit", "FleetManifest", "HCI", "HCITransports", "LECentral",
                "MetricsExposition", "ProcessTestKit", "VirtualRadio", "VirtualBeacons", .product(name: "Logging", package: "swift-log"),
            ],
            // The golden outputs and their inputs are read from the source tree by path.
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BeaconCLI", "BeaconCore", "BeaconMQTT", "BeaconFleet", "BeaconPlatform", "BeaconTestKit", "ClockTestKit", "FleetManifest", "HCI", "HCITransports",
                "LECentral", "BeaconProfiles", "ProcessTestKit", "VirtualRadio", .product(name: "Logging", package: "swift-log"),
            ],
            // The peripherals Bumble plays, run by the tests from the source tree.
            exclude: ["Peripherals"], swiftSettings: strict),
    ]
)
