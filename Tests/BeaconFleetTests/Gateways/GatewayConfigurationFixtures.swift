/// The configuration side of the gateways, as each one's source reads and answers it: the
/// topics a keep-list is published on and the messages a receiver sends back. Each names the
/// repository and file it was read from; the values (UUIDs, addresses, rooms) are made up.
enum GatewayConfigurationFixtures {
    // MARK: ESPresense (ESPresense/ESPresense)

    /// `src/main.cpp` `onMqttConnect`: every board subscribes to `espresense/rooms/*/+/set`
    /// and to its own `espresense/rooms/ROOM/+/set`; `onMqttMessage` takes the level before
    /// `/set` as the setting, and `BleFingerprintCollection::Command` (`src/BleFingerprintCollection.cpp`,
    /// at 0781798672435b93475e51b135f28667ae47b6c8) stores `include`.
    static let espresenseEveryBoardInclude = "espresense/rooms/*/include/set"
    static func espresenseSubscriptions(room: String) -> [String] { ["espresense/rooms/*/+/set", "espresense/rooms/\(room)/+/set"] }

    /// `src/main.cpp` `sendTelemetry`'s `!online` branch, run again after a changed setting:
    /// `pub(roomsTopic + "/include", 0, true, include)`, retained.
    static func espresenseIncludeReport(room: String) -> String { "espresense/rooms/\(room)/include" }

    /// `src/BleFingerprint.cpp` `shouldHide`: a device is reported only when its id starts
    /// with one of `include`'s space-separated prefixes (`prefixExists`); an iBeacon's id is
    /// `iBeacon:UUID-MAJOR-MINOR`, the UUID in lower case with dashes (as
    /// `GatewayFixtures.espresenseV4`).
    static let espresenseBeaconID = "iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-7-1"

    // MARK: OpenMQTTGateway (1technophile/OpenMQTTGateway)

    /// `docs/use/ble.md` "Setting a white or black list" (at 03025342ff90457a101b6078924e1e8c1b862fdd):
    /// `mosquitto_pub -t home/OpenMQTTGateway/commands/MQTTtoBT/config -m '{"white-list":[…]}'`,
    /// retained to survive a restart; `main/gatewayBT.cpp` `XtoBT` → `updateWorB` reads the
    /// `white-list` key, and `BTConfig_fromJson` reads `ignoreWBlist` (at
    /// 02e96754404ea1760dc76a71fd73e1cd748ce6ee).
    static let openMQTTGatewayCommand = "home/OpenMQTTGateway/commands/MQTTtoBT/config"

    /// `stateBTMeasures` (same file and commit), published after every configuration command on
    /// the gateway's `BTtoMQTT` topic: its BT settings, `ignoreWBlist` among them, not the list.
    static let openMQTTGatewaySettingsTopic = "home/OpenMQTTGateway/BTtoMQTT"
    static let openMQTTGatewaySettings = #"{"bleconnect":true,"interval":55555,"adaptivescan":true,"intervalacts":3600000,"intervalcnct":3600000,"scanduration":10000,"hasspresence":false,"prestopic":"presence/","presuseuuid":false,"minrssi":-100,"extDecoderEnable":false,"extDecoderTopic":"undecoded","pubuuid4topic":false,"ignoreWBlist":false,"forcepscn":false,"tskstck":1200,"crstck":1400,"enabled":true,"scnct":12,"onlysensors":false,"randommacs":false,"filterConnectable":false,"pubadvdata":false,"presenceawaytimer":120000,"movingtimer":60000}"#

    // MARK: Theengs Gateway (theengs/gateway)

    /// `TheengsGateway/config.py` `DEFAULT_CONFIG` (at 77201b2d05af428ab95eaaeabc502605b4b17ce7):
    /// `"whitelist": []`, also `--whitelist` on the command line; `ble_gateway.py`
    /// `detection_callback` drops an address not in a non-empty `whitelist`. Its MQTT
    /// subscriptions are `subscribe_topic` (undecoded advertisements) and the tracker sync:
    /// there is no topic to set the list on.
    static let theengsWhitelistKey = "whitelist"
}
