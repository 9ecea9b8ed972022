import BeaconCore
import BeaconFleet

/// What `gateways configure` prints: the publications, and each receiver's answer.
enum GatewaysOutput {
    /// Each publication (to be, with --dry-run) on standard output; on standard error, that
    /// OpenMQTTGateway forgets a list of several commands when it restarts.
    static func printPlan(_ plan: GatewayConfiguringPlan, dryRun: Bool, console: Console) {
        for publication in plan.configuration.publications {
            let retained = publication.retain ? " (retained)" : ""
            console.line("\(dryRun ? "would publish" : "publishing") to \(publication.topic)\(retained): \(publication.payload)")
        }
        if plan.commandCount > 1 {
            console.errorLine("beaconctl: warning: the white list takes \(plan.commandCount) commands and a topic retains only the last: OpenMQTTGateway forgets the list when it restarts; run `gateways configure` again after a restart")
        }
    }

    /// One line per receiver; exit 1 unless every one confirmed (and at least one answered).
    static func report(
        _ answers: [GatewayReceiverAnswer], gateway: GatewayKeepList.Kind, base: String, timeout: Double, console: Console
    ) throws(CommandFailure) {
        let what = gateway == .espresense ? "holds the list (its include setting)" : "took the white-list command (it does not report the list itself)"
        for answer in answers {
            if let why = answer.unconfirmedBecause {
                console.line("\(answer.name) (\(gateway.rawValue)): not confirmed within \(NumberText.plain(timeout)) s: \(why)")
            } else {
                console.line("\(answer.name) (\(gateway.rawValue)): \(what)")
            }
        }
        if answers.isEmpty {
            throw CommandFailure(.findings, "no \(gateway.displayName) receiver answered under \(base) within \(NumberText.plain(timeout)) s: check --mqtt's base topic and that the receivers are online")
        }
        let unconfirmed = answers.filter { $0.unconfirmedBecause != nil }.map(\.name)
        if !unconfirmed.isEmpty {
            throw CommandFailure(.findings, "\(NumberText.count(unconfirmed.count, "receiver")) did not confirm: \(unconfirmed.joined(separator: ", ")); run again once they are online (the command is safe to repeat)")
        }
    }
}
