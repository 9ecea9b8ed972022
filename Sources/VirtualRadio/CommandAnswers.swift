import HCI

/// Return parameters (status first) of the Command Complete events the virtual controller
/// sends.
enum CommandAnswers {
    /// Success with the command's return parameters.
    static func success<Command: HCICommand>(_ command: Command.Type, _ value: Command.ReturnParameters) -> [UInt8] {
        var bytes: [UInt8] = [HCIStatus.success.rawValue]
        Command.encodeReturnParameters(value, into: &bytes)
        return bytes
    }

    /// Success for a command that returns the status only.
    static func success<Command: HCICommand>(_ command: Command.Type) -> [UInt8] where Command.ReturnParameters == Void {
        [HCIStatus.success.rawValue]
    }

    /// A refusal: the status, then the command's return parameters zero-filled to their
    /// usual length. Real controllers (RootCanal among them) keep the length on failure, and
    /// hosts that read fixed-length answers before looking at the status rely on it.
    static func failure(_ status: HCIStatus, opcode: HCIOpcode) -> [UInt8] {
        [status.rawValue] + [UInt8](repeating: 0, count: returnParameterLength[opcode.rawValue] ?? 0)
    }

    /// Return parameter lengths after the status, of the commands that have more than a status.
    private static let returnParameterLength: [UInt16: Int] = [
        HCIOpcode.readLocalVersionInformation.rawValue: 8,
        HCIOpcode.readLocalSupportedCommands.rawValue: SupportedCommands.octetCount,
        HCIOpcode.readLocalSupportedFeatures.rawValue: 8,
        HCIOpcode.readBDADDR.rawValue: 6,
        HCIOpcode.leReadBufferSize.rawValue: 3,
        HCIOpcode.leReadLocalSupportedFeatures.rawValue: 8,
        HCIOpcode.leReadAdvertisingPhysicalChannelTxPower.rawValue: 1,
        HCIOpcode.leSetExtendedAdvertisingParameters.rawValue: 1,
        HCIOpcode.leReadMaximumAdvertisingDataLength.rawValue: 2,
        HCIOpcode.leReadNumberOfSupportedAdvertisingSets.rawValue: 1,
    ]
}
