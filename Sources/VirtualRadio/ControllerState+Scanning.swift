import HCI

extension ControllerState {
    private static let microsecondsPerUnit = UInt64(AdvertisingInterval.microsecondsPerUnit)

    private static func phyScan(type: ScanType, interval: ScanInterval, window: ScanInterval) -> ScanState.PHYScan {
        ScanState.PHYScan(
            type: type, intervalMicroseconds: UInt64(interval.units) * microsecondsPerUnit,
            windowMicroseconds: UInt64(window.units) * microsecondsPerUnit)
    }

    /// Starts (or restarts, clearing the duplicate filter) the scanner.
    private mutating func startScanning(
        at now: AirTime, filter: ScanDuplicateFilter, durationMicroseconds: UInt64 = 0, periodMicroseconds: UInt64 = 0
    ) -> [ControllerWork] {
        scan.isEnabled = true
        scan.generation = nextGeneration()
        scan.startTime = now
        scan.filterDuplicates = filter
        scan.durationMicroseconds = durationMicroseconds
        // Without a duration the period means nothing (Core v5.4 Vol 4 Part E 7.8.65).
        scan.periodMicroseconds = durationMicroseconds == 0 ? 0 : periodMicroseconds
        scan.reported.removeAll()
        scan.reportedPeriod = 0
        guard durationMicroseconds > 0, scan.periodMicroseconds == 0 else { return [] }
        return [.scanTimeout(at: now.advanced(byMicroseconds: durationMicroseconds), generation: scan.generation)]
    }

    mutating func stopScanning() {
        guard scan.isEnabled else { return }
        scan.isEnabled = false
        scan.generation = nextGeneration()
        scan.reported.removeAll()
    }

    /// Whether scanning from a random own address lacks LE Set Random Address.
    private var scanLacksRandomAddress: Bool {
        (scan.ownAddressType == .random || scan.ownAddressType == .resolvableOrRandom) && randomAddress == nil
    }

    /// LE Set Scan Parameters (Core v5.4 Vol 4 Part E 7.8.10): not while scanning.
    mutating func setScanParameters(_ command: LESetScanParameters) -> CommandOutcome {
        guard !scan.isEnabled else { return .status(.commandDisallowed, LESetScanParameters.opcode) }
        scan.le1M = Self.phyScan(type: command.type, interval: command.interval, window: command.window)
        scan.leCoded = nil
        scan.ownAddressType = command.ownAddressType
        scan.format = .legacy
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetScanParameters.self))
    }

    /// LE Set Scan Enable (Core v5.4 Vol 4 Part E 7.8.11). Enabling again restarts the
    /// scan with an empty duplicate filter.
    mutating func setScanEnable(_ command: LESetScanEnable, at now: AirTime) -> CommandOutcome {
        guard command.isEnabled else {
            let wasEnabled = scan.isEnabled
            stopScanning()
            return CommandOutcome(returnParameters: CommandAnswers.success(LESetScanEnable.self), scanningChanged: wasEnabled)
        }
        guard !scanLacksRandomAddress else { return .status(.invalidHCICommandParameters, LESetScanEnable.opcode) }
        scan.format = .legacy
        let work = startScanning(at: now, filter: command.filterDuplicates ? .enabled : .disabled)
        return CommandOutcome(
            returnParameters: CommandAnswers.success(LESetScanEnable.self), work: work, scanningChanged: true)
    }

    /// LE Set Extended Scan Parameters (Core v5.4 Vol 4 Part E 7.8.64): not while
    /// scanning; LE Coded only when the controller has it.
    mutating func setExtendedScanParameters(_ command: LESetExtendedScanParameters) -> CommandOutcome {
        let opcode = LESetExtendedScanParameters.opcode
        guard !scan.isEnabled else { return .status(.commandDisallowed, opcode) }
        if command.leCoded != nil && !configuration.leFeatures.contains(.leCodedPhy) {
            return .status(.unsupportedFeatureOrParameterValue, opcode)
        }
        scan.le1M = command.le1M.map { Self.phyScan(type: $0.type, interval: $0.interval, window: $0.window) }
        scan.leCoded = command.leCoded.map { Self.phyScan(type: $0.type, interval: $0.interval, window: $0.window) }
        scan.ownAddressType = command.ownAddressType
        scan.format = .extended
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetExtendedScanParameters.self))
    }

    /// LE Set Extended Scan Enable (Core v5.4 Vol 4 Part E 7.8.65). Duration (10 ms units)
    /// ends the scan with LE Scan Timeout; with a Period (1.28 s units) the scan repeats
    /// instead, and Duration must be shorter than Period.
    mutating func setExtendedScanEnable(_ command: LESetExtendedScanEnable, at now: AirTime) -> CommandOutcome {
        let opcode = LESetExtendedScanEnable.opcode
        guard command.isEnabled else {
            let wasEnabled = scan.isEnabled
            stopScanning()
            return CommandOutcome(returnParameters: CommandAnswers.success(LESetExtendedScanEnable.self), scanningChanged: wasEnabled)
        }
        let duration = UInt64(command.durationIn10ms) * 10_000
        let period = UInt64(command.periodIn1280ms) * 1_280_000
        if duration > 0 && period > 0 && duration >= period {
            return .status(.invalidHCICommandParameters, opcode)
        }
        guard !scanLacksRandomAddress else { return .status(.invalidHCICommandParameters, opcode) }
        scan.format = .extended
        let work = startScanning(
            at: now, filter: command.filterDuplicates, durationMicroseconds: duration, periodMicroseconds: period)
        return CommandOutcome(
            returnParameters: CommandAnswers.success(LESetExtendedScanEnable.self), work: work, scanningChanged: true)
    }
}
