import ArgumentParser

extension BeaconCtl {
    /// Every top-level subcommand, in the order `--help` lists them.
    static let subcommandTypes: [any ParsableCommand.Type] = [
        FleetCommand.self,
        AdvertiseCommand.self,
        ScanCommand.self,
        MonitorCommand.self,
        CalibrateCommand.self,
        ControllersCommand.self,
        DecodeCommand.self,
        PlanCommand.self,
    ]
}
