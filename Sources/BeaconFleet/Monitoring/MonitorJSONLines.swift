import BeaconCore

/// The JSON-lines form of monitoring output, one object per line (docs/monitoring.md):
///
///     {"event":"enter","region":"store","state":"inside","time":12.5,"beacons":["89D6E936-…/1/2"],
///      "receivers":[{"receiver":"store-12:hci0","sightings":1,"strongest_rssi":-63}]}
///     {"event":"range","region":"store","time":15,"beacons":[{"uuid":"…","major":1,"minor":2,
///      "address":"C0:…","rssi":-63,"filtered_rssi":-61.5,"accuracy":1.19,"accuracy_low":0.86,"accuracy_high":2.38,"proximity":"near",
///      "receiver":"store-12:hci0"}]}
///
/// `event` is `enter`, `exit`, `state` or `range`; beacons are `UUID/major/minor` for region
/// events and objects, nearest first, for ranging (one per beacon and receiver: each
/// receiver ranges on its own readings). `receivers` are those that heard the region's
/// beacons during the stay, strongest first. Times are seconds on the input's clock.
/// A region event lists at most `StayBeacons.listLimit` identities; when it heard more it
/// adds `beacon_count` (and `beacon_count_is_lower_bound` beyond `StayBeacons.countLimit`).
public enum MonitorJSONLines {
    public static func encode(_ event: RegionEvent) -> String {
        var line = "{\"event\":\"\(event.kind.rawValue)\",\"region\":" + JSONText.stringLiteral(event.regionIdentifier)
        line += ",\"state\":\"\(event.state.rawValue)\",\"time\":" + SightingJSONLines.timeText(event.time.seconds)
        line += ",\"beacons\":[" + event.beacons.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        // Only when the list is shortened (see StayBeacons): the count of all identities heard.
        if event.isBeaconListShortened {
            line += ",\"beacon_count\":\(event.beaconCount)"
            if event.beaconCountIsLowerBound { line += ",\"beacon_count_is_lower_bound\":true" }
        }
        line += ",\"receivers\":[" + event.receivers.map(encode(_:)).joined(separator: ",") + "]"
        return line + "}"
    }

    public static func encode(_ ranging: RegionRanging) -> String {
        var line = "{\"event\":\"range\",\"region\":" + JSONText.stringLiteral(ranging.regionIdentifier)
        line += ",\"time\":" + SightingJSONLines.timeText(ranging.time.seconds) + ",\"beacons\":["
        line += ranging.beacons.map(encode(_:)).joined(separator: ",") + "]}"
        return line
    }

    private static func encode(_ receiver: StayReceiver) -> String {
        "{\"receiver\":" + JSONText.stringLiteral(receiver.receiver) + ",\"sightings\":\(receiver.sightings)"
            + ",\"strongest_rssi\":" + (receiver.strongestRSSI.map(String.init) ?? "null") + "}"
    }

    private static func encode(_ beacon: RangedBeacon) -> String {
        var object = "{\"uuid\":\"\(beacon.identity.uuid)\",\"major\":\(beacon.identity.major),\"minor\":\(beacon.identity.minor)"
        object += ",\"address\":" + JSONText.stringLiteral(BluetoothAddress.text(beacon.address))
        object += ",\"rssi\":" + (beacon.rssi.map(String.init) ?? "null")
        object += ",\"filtered_rssi\":" + (beacon.filteredRSSI.map { rounded($0, places: 1) } ?? "null")
        object += ",\"accuracy\":" + (beacon.accuracy.map { rounded($0, places: 2) } ?? "null")
        // The interval holding the true distance for 68 % of readings (docs/ranging.md).
        object += ",\"accuracy_low\":" + (beacon.accuracyInterval.map { rounded($0.lowerBound, places: 2) } ?? "null")
        object += ",\"accuracy_high\":" + (beacon.accuracyInterval.map { rounded($0.upperBound, places: 2) } ?? "null")
        object += ",\"proximity\":\"\(beacon.proximity.rawValue)\",\"receiver\":" + JSONText.stringLiteral(beacon.receiver) + "}"
        return object
    }

    /// A finite number with at most `places` decimals and no trailing zeros.
    static func rounded(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return SightingJSONLines.timeText((value * scale).rounded() / scale)
    }
}
