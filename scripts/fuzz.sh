#!/usr/bin/env bash
# Builds a libFuzzer target from the package's own sources and runs it.
#
# Usage: scripts/fuzz.sh [TARGET] [SECONDS] [-- LIBFUZZER-FLAGS…]
#   TARGET   ADParserFuzz (default), HCIEventFuzz, SightingLineFuzz, VerificationFuzz,
#            MonitorScheduleFuzz, CaptureFuzz, RangingInputFuzz, PcapFuzz, GatewayFuzz,
#            GatewayConfigurationFuzz, ATTFuzz, BeaconProfilesFuzz, VirtualBeaconFuzz,
#            ProfileFileFuzz, or all
#   SECONDS  how long to fuzz each target (default 60); 0 only builds
#
# The fuzz entry points live in Fuzz/<TARGET>/ and are not SwiftPM targets: SwiftPM cannot
# link a libFuzzer main. This script compiles the modules they exercise straight from
# Sources/ with swiftc -sanitize=fuzzer,address (coverage-guided, with AddressSanitizer):
#   BeaconCore   every file
#   HCI          every file
#   LECentral    every file (L2CAP, ATT, GATT, the central)
#   YAMLDocument every file (libyaml's events, scalar typing, the node tree; with libyaml)
#   BeaconProfiles every file (vendor configuration profiles, declarative profile files; with
#                OpenSSL's libcrypto)
#   FleetManifest every file (with libyaml, as the package builds it)
#   VirtualRadio, VirtualBeacons every file (the virtual radio and its battery beacons; built
#                with -enable-testing, so that the fuzz target can reach the beacon's firmware)
#   RangingEvaluation every file (recordings at known distances, the estimators)
#   BeaconMQTT   the broker URL only (MQTTBrokerURL, MQTTError, MQTTCredentials: no libmosquitto)
#   BeaconFleet  Sighting*.swift, Decode*.swift, Verification/ (with Health/ and Pass/), Monitoring/ and Gateways/
#                (with MQTTTopics.swift), the parts that read untrusted bytes and judge what
#                they say; the rest needs swift-log
# Everything lands in .build/fuzz/. The committed seeds in Fuzz/corpus/<TARGET>/ are
# copied into a working corpus there, so fuzzing never writes into the repository.
# A crash leaves its input in .build/fuzz/artifacts/ and exits non-zero; reproduce it
# with .build/fuzz/<TARGET> <crash-file>.
set -euo pipefail

say() { printf 'fuzz: %s\n' "$*"; }
fail() { printf 'fuzz: error: %s\n' "$*" >&2; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${1:-ADParserFuzz}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
[[ "${1:-}" == "--" ]] && shift
extra_flags=("$@")

targets=(ADParserFuzz HCIEventFuzz SightingLineFuzz VerificationFuzz MonitorScheduleFuzz CaptureFuzz RangingInputFuzz PcapFuzz GatewayFuzz GatewayConfigurationFuzz ATTFuzz BeaconProfilesFuzz VirtualBeaconFuzz ProfileFileFuzz)
if [[ "$target" == all ]]; then
  selected=("${targets[@]}")
else
  [[ -d "Fuzz/$target" ]] || fail "unknown target '$target'; choose one of: ${targets[*]} or all"
  selected=("$target")
fi
[[ "$seconds" =~ ^[0-9]+$ ]] || fail "SECONDS must be a whole number; got '$seconds'"
command -v swiftc >/dev/null || fail "swiftc is not on PATH: install Swift 6.3 and try again"

out="$root/.build/fuzz"
# Swift's crash backtracer reads the stack in a way AddressSanitizer reports as a second,
# bogus error; libFuzzer prints the stack of a real crash itself.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$out/modules" "$out/artifacts"
common=(-swift-version 6 -package-name beaconctl -parse-as-library -sanitize=fuzzer,address -O -g -I "$out/modules")

# One module: its sources into one object file and a .swiftmodule the next ones import.
build_module() {
  local name="$1"; shift
  say "compiling $name ($# files)"
  swiftc "${common[@]}" -module-name "$name" -wmo -c "$@" \
    -emit-module -emit-module-path "$out/modules/$name.swiftmodule" -o "$out/modules/$name.o"
}

build_module BeaconCore Sources/BeaconCore/*.swift
build_module RangingEvaluation Sources/RangingEvaluation/*.swift
mapfile -t hci_sources < <(find Sources/HCI -name '*.swift' | sort)
build_module HCI "${hci_sources[@]}"
mapfile -t central_sources < <(find Sources/LECentral -name '*.swift' | sort)
build_module LECentral "${central_sources[@]}"
build_module CryptoPrimitives -I Sources/CLibCrypto Sources/CryptoPrimitives/*.swift
build_module YAMLDocument -I Sources/CYAML Sources/YAMLDocument/*.swift
mapfile -t profile_sources < <(find Sources/BeaconProfiles -name '*.swift' | sort)
build_module BeaconProfiles -I Sources/CLibCrypto -I Sources/CYAML "${profile_sources[@]}"
mapfile -t radio_sources < <(find Sources/VirtualRadio -name '*.swift' | sort)
build_module VirtualRadio -enable-testing "${radio_sources[@]}"
mapfile -t virtual_beacon_sources < <(find Sources/VirtualBeacons -name '*.swift' | sort)
build_module VirtualBeacons -enable-testing -I Sources/CLibCrypto "${virtual_beacon_sources[@]}"
mapfile -t manifest_sources < <(find Sources/FleetManifest -name '*.swift' | sort)
build_module FleetManifest -I Sources/CYAML "${manifest_sources[@]}"
# The gateway decoders name their default base through the broker URL; the client proper
# (libmosquitto) is left out.
build_module BeaconMQTT Sources/BeaconMQTT/MQTTBrokerURL.swift Sources/BeaconMQTT/MQTTError.swift Sources/BeaconMQTT/MQTTCredentials.swift
# The verification and monitoring engines, not the use cases around them (RegionMonitoring.swift,
# OneShotVerification.swift: they open inputs and log through swift-log).
mapfile -t fleet_sources < <(find Sources/BeaconFleet/Verification Sources/BeaconFleet/Monitoring -name '*.swift' ! -name MonitorRun.swift ! -name MonitorReplay.swift ! -name RegionMonitoring.swift ! -name OneShotVerification.swift | sort)
# The readers of recordings, not the live side (SightingSource.swift opens controllers too)
# nor the reading that logs (SightingRecording+Reading.swift needs swift-log).
mapfile -t sighting_sources < <(find Sources/BeaconFleet/Sightings -name '*.swift' ! -name SightingSource.swift ! -name 'SightingRecording+Reading.swift' ! -name 'SightingRecording+Opening.swift' | sort)
build_module BeaconFleet -I Sources/CYAML "${sighting_sources[@]}" Sources/BeaconFleet/Decode/*.swift \
  Sources/BeaconFleet/Gateways/*.swift Sources/BeaconFleet/Broker/MQTTTopics.swift Sources/BeaconFleet/Watch/InputHealth.swift \
  Sources/BeaconFleet/Manifest/*.swift Sources/BeaconFleet/Advertising/AdvertisingError.swift Sources/BeaconFleet/Advertising/AdvertisingSetAllocation.swift Sources/BeaconFleet/Advertising/AdvertisingFault.swift Sources/BeaconFleet/Advertising/StopReason.swift \
  Sources/BeaconFleet/Controllers/ControllerAdvice.swift Sources/BeaconFleet/Health/*.swift Sources/BeaconFleet/Pass/*.swift "${fleet_sources[@]}"
# The reports a verification pass renders (their escaping meets hostile identities).
build_module BeaconCLI -I Sources/CYAML Sources/BeaconCLI/Rendering/JSONOutput.swift Sources/BeaconCLI/Rendering/StreamingJSONWriter.swift Sources/BeaconCLI/Rendering/Console.swift \
  Sources/BeaconCLI/Rendering/Verify/ReportSink.swift Sources/BeaconCLI/Rendering/Verify/VerificationReportPass.swift \
  Sources/BeaconCLI/Rendering/Verify/VerificationJSONReport.swift \
  Sources/BeaconCLI/Rendering/Verify/VerificationJUnitReport.swift Sources/BeaconCLI/Rendering/Verify/VerificationMarkdownReport.swift

status=0
for name in "${selected[@]}"; do
  say "linking $name"
  # The linker warns that it cannot export ASan's local symbols; that is harmless noise.
  swiftc "${common[@]}" -module-name "$name" Fuzz/"$name"/*.swift \
    "$out/modules/BeaconCore.o" "$out/modules/CryptoPrimitives.o" "$out/modules/RangingEvaluation.o" "$out/modules/HCI.o" "$out/modules/LECentral.o" "$out/modules/YAMLDocument.o" "$out/modules/VirtualRadio.o" "$out/modules/VirtualBeacons.o" "$out/modules/BeaconProfiles.o" "$out/modules/FleetManifest.o" "$out/modules/BeaconMQTT.o" "$out/modules/BeaconFleet.o" "$out/modules/BeaconCLI.o" \
    -I Sources/CYAML -I Sources/CLibCrypto -lyaml -lcrypto \
    -o "$out/$name" 2> >(grep -v "Cannot export local symbol" >&2)
  [[ "$seconds" -eq 0 ]] && continue
  corpus="$out/corpus-$name"
  mkdir -p "$corpus"
  if [[ -d "Fuzz/corpus/$name" ]]; then cp -n Fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null || true; fi
  say "running $name for $seconds s (corpus $corpus)"
  if ! "$out/$name" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/artifacts/$name-" -print_final_stats=1 ${extra_flags[@]+"${extra_flags[@]}"}; then
    say "$name found a crash: see $out/artifacts/"
    status=1
  fi
done
exit "$status"
