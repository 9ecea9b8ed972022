import BeaconCore

/// Whether a pass leaves a throttling gateway's receivers time to be judged: the one-shot
/// pass needs `requiredSightings` reports of a beacon before its timeout, or a beacon heard
/// by one receiver comes out `weak`; the watch needs a silence longer than two reports
/// apart, or a beacon looks `missing` between reports. Said as a warning before the pass
/// (docs/gateways.md, "How long to listen").
public enum GatewayPacing {
    /// The warning for a one-shot pass over `gateways` with `timeout` seconds, if it is short.
    public static func timeoutWarning(gateways: [GatewayKind], requiredSightings: Int, timeout: Duration?) -> String? {
        // No timeout (to the end of the input): the reports have all the time they need.
        guard let (gateway, period) = slowest(gateways), let timeout = timeout?.instantSeconds else { return nil }
        // The first report may come up to one period after the start, then one per period.
        let needed = Double(max(1, requiredSightings)) * period
        guard timeout < needed else { return nil }
        return "\(gateway.rawValue) reports a beacon at most once every \(NumberText.plain(period)) s per receiver: "
            + "\(requiredSightings) reports (the required sightings) can take \(NumberText.plain(needed)) s, longer than --timeout "
            + "\(NumberText.plain(timeout)) s, so a beacon heard by one receiver may come out weak; give --timeout \(NumberText.plain(needed.rounded(.up))) or more"
    }

    /// The warning for a watch over `gateways` with `silence` seconds, if it is short.
    public static func silenceWarning(gateways: [GatewayKind], silence: Double) -> String? {
        guard let (gateway, period) = slowest(gateways) else { return nil }
        let needed = 2 * period
        guard silence < needed else { return nil }
        return "\(gateway.rawValue) reports a beacon at most once every \(NumberText.plain(period)) s per receiver: "
            + "--silence \(NumberText.plain(silence)) s is shorter than two of its reports, so a beacon may come out missing "
            + "between reports; give --silence \(NumberText.plain(needed.rounded(.up))) or more"
    }

    /// The gateway among `gateways` with the longest report period, with it.
    private static func slowest(_ gateways: [GatewayKind]) -> (GatewayKind, Double)? {
        var slowest: (GatewayKind, Double)?
        for gateway in gateways {
            guard let period = gateway.decoder.reportPeriod, period > (slowest?.1 ?? 0) else { continue }
            slowest = (gateway, period)
        }
        return slowest
    }
}
