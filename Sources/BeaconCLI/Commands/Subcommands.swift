import ArgumentParser

extension BeaconCtl {
    /// Every top-level subcommand, in the order `--help` lists them: the fleet first, then
    /// the radio side (advertise, listen, check, watch, measure), then tools.
    static let subcommandTypes: [any ParsableCommand.Type] = [
        FleetCommand.self,
        AdvertiseCommand.self,
        ScanCommand.self,
        VerifyCommand.self,
        ProvisionCommand.self,
        MonitorCommand.self,
        GatewaysCommand.self,
        CalibrateCommand.self,
        ControllersCommand.self,
        PlanCommand.self,
        DecodeCommand.self,
    ]
}
