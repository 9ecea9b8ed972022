import HCI

extension ControllerState {
    /// Answers one command the way a controller does (Core v5.4 Vol 4 Part E 4.5 and 7):
    ///
    /// 1. an opcode the controller does not implement → Unknown HCI Command (0x01); the
    ///    extended family counts as unknown when extended advertising is configured off;
    /// 2. a command of the other advertising family than the one used since Reset →
    ///    Command Disallowed (0x0C), the family being chosen by the first command of either
    ///    (even one that then fails, as controllers do);
    /// 3. parameters of the wrong length or out of their range → Invalid HCI Command
    ///    Parameters (0x12);
    /// 4. the command's own rules (state, unknown sets, capacity).
    mutating func handle(_ command: HCICommandPacket, at now: AirTime) -> CommandOutcome {
        let opcode = command.opcode
        if let commandFamily = CommandFamily(opcode) {
            if commandFamily == .extended && !configuration.supportsExtendedAdvertising {
                return .status(.unknownHCICommand, opcode)
            }
            // A controller without extended advertising has only one family: nothing to track.
            if configuration.supportsExtendedAdvertising {
                if let family, family != commandFamily {
                    return .status(.commandDisallowed, opcode)
                }
                family = commandFamily
            }
        }
        let parameters = command.parameters[...]
        do {
            switch opcode {
            // Controller & baseband, informational
            case .reset:
                _ = try Reset.decodeParameters(parameters)
                return reset()
            case .setEventMask:
                eventMask = try SetEventMask.decodeParameters(parameters).mask
                return CommandOutcome(returnParameters: CommandAnswers.success(SetEventMask.self))
            case .readLocalVersionInformation:
                _ = try ReadLocalVersionInformation.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    ReadLocalVersionInformation.self, configuration.version))
            case .readLocalSupportedCommands:
                _ = try ReadLocalSupportedCommands.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    ReadLocalSupportedCommands.self,
                    SupportedCommandTable.supportedCommands(extendedAdvertising: configuration.supportsExtendedAdvertising)))
            case HCIOpcode.readLocalSupportedFeatures:
                guard parameters.isEmpty else { return .status(.invalidHCICommandParameters, opcode) }
                return CommandOutcome(returnParameters: [HCIStatus.success.rawValue] + Self.lmpFeatures)
            case .readBDADDR:
                _ = try ReadBDADDR.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(ReadBDADDR.self, publicAddress))
            // LE controller
            case .leSetEventMask:
                leEventMask = try LESetEventMask.decodeParameters(parameters).mask
                return CommandOutcome(returnParameters: CommandAnswers.success(LESetEventMask.self))
            case .leReadBufferSize:
                _ = try LEReadBufferSize.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(LEReadBufferSize.self, Self.leBufferSize))
            case .leReadLocalSupportedFeatures:
                _ = try LEReadLocalSupportedFeatures.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    LEReadLocalSupportedFeatures.self, configuration.leFeatures))
            case .leSetRandomAddress:
                return setRandomAddress(try LESetRandomAddress.decodeParameters(parameters))
            case .leSetAdvertisingParameters:
                return setAdvertisingParameters(try LESetAdvertisingParameters.decodeParameters(parameters))
            case .leReadAdvertisingPhysicalChannelTxPower:
                _ = try LEReadAdvertisingPhysicalChannelTxPower.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    LEReadAdvertisingPhysicalChannelTxPower.self, configuration.legacyTxPower))
            case .leSetAdvertisingData:
                return setAdvertisingData(try LESetAdvertisingData.decodeParameters(parameters))
            case .leSetAdvertisingEnable:
                return setAdvertisingEnable(try LESetAdvertisingEnable.decodeParameters(parameters), at: now)
            case .leSetScanParameters:
                return setScanParameters(try LESetScanParameters.decodeParameters(parameters))
            case .leSetScanEnable:
                return setScanEnable(try LESetScanEnable.decodeParameters(parameters), at: now)
            case .leSetAdvertisingSetRandomAddress:
                return setAdvertisingSetRandomAddress(try LESetAdvertisingSetRandomAddress.decodeParameters(parameters))
            case .leSetExtendedAdvertisingParameters:
                return setExtendedAdvertisingParameters(try LESetExtendedAdvertisingParameters.decodeParameters(parameters))
            case .leSetExtendedAdvertisingData:
                return setExtendedAdvertisingData(try LESetExtendedAdvertisingData.decodeParameters(parameters))
            case .leSetExtendedAdvertisingEnable:
                return setExtendedAdvertisingEnable(try LESetExtendedAdvertisingEnable.decodeParameters(parameters), at: now)
            case .leReadMaximumAdvertisingDataLength:
                _ = try LEReadMaximumAdvertisingDataLength.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    LEReadMaximumAdvertisingDataLength.self, UInt16(configuration.maximumAdvertisingDataLength)))
            case .leReadNumberOfSupportedAdvertisingSets:
                _ = try LEReadNumberOfSupportedAdvertisingSets.decodeParameters(parameters)
                return CommandOutcome(returnParameters: CommandAnswers.success(
                    LEReadNumberOfSupportedAdvertisingSets.self, UInt8(configuration.advertisingSetCount)))
            case .leRemoveAdvertisingSet:
                return removeAdvertisingSet(try LERemoveAdvertisingSet.decodeParameters(parameters))
            case .leClearAdvertisingSets:
                _ = try LEClearAdvertisingSets.decodeParameters(parameters)
                return clearAdvertisingSets()
            case .leSetExtendedScanParameters:
                return setExtendedScanParameters(try LESetExtendedScanParameters.decodeParameters(parameters))
            case .leSetExtendedScanEnable:
                return setExtendedScanEnable(try LESetExtendedScanEnable.decodeParameters(parameters), at: now)
            default:
                return .status(.unknownHCICommand, opcode)
            }
        } catch {
            // Wrong length, a reserved value, or values that contradict each other.
            return .status(.invalidHCICommandParameters, opcode)
        }
    }

    /// Back to the power-on state (Core v5.4 Vol 4 Part E 7.3.2): advertising and scanning
    /// stop, sets are gone, masks are the defaults, and either command family may be chosen again.
    private mutating func reset() -> CommandOutcome {
        for key in sets.keys {
            sets[key]?.isEnabled = false
        }
        sets = [AdvertisingSet.legacyKey: makeLegacySet()]
        let scanWasEnabled = scan.isEnabled
        scan = ScanState()
        scan.generation = nextGeneration()
        eventMask = .specDefault
        leEventMask = .specDefault
        family = nil
        randomAddress = nil
        return CommandOutcome(returnParameters: CommandAnswers.success(Reset.self), scanningChanged: scanWasEnabled)
    }

    /// LE Set Random Address (Core v5.4 Vol 4 Part E 7.8.4): refused while legacy
    /// advertising or scanning uses the current one.
    private mutating func setRandomAddress(_ command: LESetRandomAddress) -> CommandOutcome {
        if sets[AdvertisingSet.legacyKey]?.isEnabled == true || scan.isEnabled {
            return .status(.commandDisallowed, LESetRandomAddress.opcode)
        }
        randomAddress = command.address
        return CommandOutcome(returnParameters: CommandAnswers.success(LESetRandomAddress.self))
    }

    /// LMP features page 0 (Core v5.4 Vol 2 Part C 3.3): bit 37 "BR/EDR Not Supported" and
    /// bit 38 "LE Supported (Controller)": an LE-only controller.
    static let lmpFeatures: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00]

    /// The smallest LE data buffers a controller may report (27 bytes, Core v5.4 Vol 4
    /// Part E 7.8.2), 15 of them: what a host's ACL flow control counts on.
    static let leBufferSize = LEReadBufferSize.ReturnParameters(aclDataPacketLength: 27, totalACLDataPackets: 15)
}
