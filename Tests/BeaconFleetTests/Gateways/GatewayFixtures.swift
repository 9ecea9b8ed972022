/// Messages exactly as each gateway's source builds them (topic and payload), one per case
/// the decoders must get right. Each names the repository, file and commit it was read
/// from; the values (UUID, addresses, rooms) are made up.
enum GatewayFixtures {
    struct Message {
        var topic: String
        var payload: String
        var bytes: [UInt8] { Array(payload.utf8) }
    }

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    // MARK: ESPresense (ESPresense/ESPresense)

    /// v4: `src/main.cpp` `reportDevice` (topic `CHANNEL "/devices/%s/%s"`, id then room) and
    /// `src/BleFingerprint.cpp` `fill` (field order; `rssi` filtered, two decimals), at
    /// a6f1105e7943c4c1426ecbd0b1d84106eaaf1dba.
    static let espresenseV4 = Message(
        topic: "espresense/devices/iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-40000-1/living_room",
        payload: #"{"mac":"c45bbe000001","id":"iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-40000-1","rssi@1m":-59,"rssi":-71.50,"rxAdj":0,"rssiVar":2.25,"distance":3.21,"var":0.40,"int":1024}"#)

    /// v3: the same files at tag v3.3.5 (981f1c257bb1c63ac84368dbde7e229d55f6a6cc): `idType`,
    /// the last advertisement's RSSI as an integer, `raw` a distance.
    static let espresenseV3 = Message(
        topic: "espresense/devices/iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2/office",
        payload: #"{"mac":"c45bbe000002","id":"iBeacon:e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2","idType":180,"rssi@1m":-59,"rssi":-68,"raw":2.10,"distance":2.05,"var":0.10,"int":1020}"#)

    /// A phone: `fill` for a non-iBeacon fingerprint (`apple:…` id), same commit as v4.
    static let espresensePhone = Message(
        topic: "espresense/devices/apple:1005:9-26/living_room",
        payload: #"{"mac":"5a1b2c3d4e5f","id":"apple:1005:9-26","rssi@1m":-65,"rssi":-80.00,"rxAdj":0,"distance":6.50,"int":310}"#)

    /// `src/main.cpp`: `statusTopic = roomsTopic + "/status"`, "online", and the will "offline".
    static let espresenseOnline = Message(topic: "espresense/rooms/living_room/status", payload: "online")
    static let espresenseOffline = Message(topic: "espresense/rooms/living_room/status", payload: "offline")

    // MARK: Theengs Gateway (theengs/gateway, theengs/decoder)

    /// `TheengsGateway/ble_gateway.py` `detection_callback` (id, rssi, manufacturerdata) →
    /// `decode_advertisement` (manufacturerdata removed without publish_advdata) →
    /// `publish_json`/`discovery.py` `publish_device_info` (IBEACON is in the default
    /// discovery filter), topic `publish_topic + "/" + id without colons`, Python's
    /// `json.dumps` separators; gateway at 0c7664ec07a1709fb30f0989642252855d7788eb.
    /// Fields from theengs/decoder `src/devices/iBeacon_json.h` and `src/decoder.cpp`
    /// `value_from_hex_string` at d6fdd205ca677b1659c55a4e2435993eb4cb9c1c: major 40000 as
    /// the signed -25536.
    static let theengsSignedMajor = Message(
        topic: "home/TheengsGateway/BTtoMQTT/C45BBE000003",
        payload: #"{"id": "C4:5B:BE:00:00:03", "rssi": -70, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": -25536, "minor": 7, "txpower": -59}"#)

    /// The measured-power byte 0x3B (top bit clear): the iBeacon model's `volt` condition
    /// (`bit 3` of the hex digit at 48 is 0) and `post_proc` "/ 10" write volt 5.9.
    static let theengsVolt = Message(
        topic: "home/TheengsGateway/BTtoMQTT/C45BBE000008",
        payload: #"{"id": "C4:5B:BE:00:00:08", "rssi": -75, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": 1, "minor": 2, "volt": 5.9}"#)

    /// With `publish_advdata` the manufacturer data stays: 4c00 0215 UUID 9c40 0001 c5.
    static let theengsAdvData = Message(
        topic: "home/TheengsGateway/BTtoMQTT/C45BBE000003",
        payload: #"{"manufacturerdata": "4c000215e2c56db5dffb48d2b060d0f5a71096e09c400001c5", "id": "C4:5B:BE:00:00:03", "rssi": -71, "brand": "GENERIC", "model": "iBeacon", "model_id": "IBEACON", "type": "BCON", "mfid": "4c00", "uuid": "e2c56db5dffb48d2b060d0f5a71096e0", "major": -25536, "minor": 1, "txpower": -59}"#)

    /// A thermometer on the same topics (`config.py` publish_topic), same commits.
    static let theengsSensor = Message(
        topic: "home/TheengsGateway/BTtoMQTT/A4C138000001",
        payload: #"{"id": "A4:C1:38:00:00:01", "rssi": -60, "brand": "Xiaomi", "model": "LYWSD03MMC", "model_id": "LYWSD03MMC_ATC", "type": "THB", "tempc": 21.5, "hum": 40, "batt": 90, "volt": 3.01}"#)

    /// `ble_gateway.py`: `will_set(lwt_topic, "offline")`, then "online" on connect.
    static let theengsOnline = Message(topic: "home/TheengsGateway/LWT", payload: "online")

    // MARK: OpenMQTTGateway (1technophile/OpenMQTTGateway)

    /// `main/ZgatewayBT.cpp` `procBLETask` (NimBLE's lower-case address, `rssi`, `txpower`
    /// from the TX Power Level AD when present) → `PublishDeviceData` (advertisement data
    /// removed without `pubadvdata`) → `buildTopicFromId` (id without colons under
    /// `/BTtoMQTT`), at 5d6ef1f89a368d22e9a23c90f67dac50a2f5fa7a; base `home/` and name
    /// `OpenMQTTGateway` from `main/User_config.h` at 749c1592b46acabc394be32e525b4ea6857542b5.
    /// ArduinoJson writes the decoder's whole doubles without a fraction.
    static let omgSignedMajor = Message(
        topic: "home/OpenMQTTGateway/BTtoMQTT/c45bbe000004",
        payload: #"{"id":"c4:5b:be:00:00:04","rssi":-74,"brand":"GENERIC","model":"iBeacon","model_id":"IBEACON","type":"BCON","mfid":"4c00","uuid":"e2c56db5dffb48d2b060d0f5a71096e0","major":-25536,"minor":-1,"txpower":-59}"#)

    /// A TX Power Level AD of +4 dBm and a measured-power byte 0x3B: `txpower` stays the AD's
    /// value, the decoder adds `volt`.
    static let omgVoltBesideTxPower = Message(
        topic: "home/OpenMQTTGateway/BTtoMQTT/c45bbe000005",
        payload: #"{"id":"c4:5b:be:00:00:05","rssi":-80,"txpower":4,"brand":"GENERIC","model":"iBeacon","model_id":"IBEACON","type":"BCON","mfid":"4c00","uuid":"e2c56db5dffb48d2b060d0f5a71096e0","major":2,"minor":3,"volt":5.9}"#)

    /// Only the UUID (`presuseuuid`'s presence message shape, id replaced by the uuid and
    /// the address kept as `mac`), as a message without major and minor.
    static let omgUUIDOnly = Message(
        topic: "home/OpenMQTTGateway/BTtoMQTT/e2c56db5dffb48d2b060d0f5a71096e0",
        payload: #"{"id":"e2c56db5dffb48d2b060d0f5a71096e0","mac":"c4:5b:be:00:00:04","rssi":-74,"brand":"GENERIC","model":"iBeacon","model_id":"IBEACON","type":"BCON","uuid":"e2c56db5dffb48d2b060d0f5a71096e0"}"#)

    /// `User_config.h`: `will_Topic "/LWT"`, `will_Message "offline"`, announcement "online".
    static let omgOffline = Message(topic: "home/OpenMQTTGateway/LWT", payload: "offline")

    // MARK: ESP32-mqtt-room (jptrsn/ESP32-mqtt-room)

    /// `src/ESP32-mqtt-room.ino` `reportDevice` (ArduinoJson order: id, uuid, rssi, then the
    /// iBeacon branch's major, minor, uuid, id, txPower, distance; `getProximityUUIDString`
    /// without dashes) and `src/Settings.h` (`channel "room_presence"`), at
    /// 186fb7cc0d214c8b559aaad5f419fa5d491de23f.
    static let mqttRoomBeacon = Message(
        topic: "room_presence/kitchen",
        payload: #"{"id":"e2c56db5dffb48d2b060d0f5a71096e0-40000-1","uuid":"e2c56db5dffb48d2b060d0f5a71096e0","rssi":-66,"major":40000,"minor":1,"txPower":-59,"distance":1.52}"#)

    /// A device that is not an iBeacon: its address as `id` and `uuid`.
    static let mqttRoomOther = Message(
        topic: "room_presence/kitchen",
        payload: #"{"id":"c45bbe000009","uuid":"c45bbe000009","rssi":-80,"txPower":-12,"distance":1.9}"#)

    /// `Settings.h`: `availabilityTopic "presence_nodes/" room`, "CONNECTED", will "DISCONNECTED".
    static let mqttRoomConnected = Message(topic: "presence_nodes/kitchen", payload: "CONNECTED")

    // MARK: room-assistant 1.x (mKeRix/room-assistant)

    /// `services/ble.service.js` `handleDiscovery`/`extractIBeacon` and
    /// `services/mqtt.service.js` (`channel/room`, `JSON.stringify` drops the absent name),
    /// at tag v1.1.1 (a0eda1e9d009a64e218cdaed27b53f64c8fe07a3).
    static let roomAssistantBeacon = Message(
        topic: "room_presence/hallway",
        payload: #"{"id":"e2c56db5dffb48d2b060d0f5a71096e0-1-2","rssi":-70,"uuid":"e2c56db5dffb48d2b060d0f5a71096e0","major":1,"minor":2,"distance":2.345678}"#)

    /// A beacon seen with `processIBeacon` off, or another device: noble's id and uuid (the
    /// address without colons), no major and minor.
    static let roomAssistantNoIBeacon = Message(
        topic: "room_presence/hallway",
        payload: #"{"id":"c45bbe000006","rssi":-70,"uuid":"c45bbe000006","distance":2.5}"#)

    // MARK: monitor (andrewjfreyer/monitor)

    /// `support/btle` `btle_packet_processor` (UUID upper case with dashes, `POWER - 256`),
    /// `monitor.sh` `BEAC` → `publish_presence_message` (field order), `support/mqtt`
    /// `json_format` (every value a string) and `support/init` (`mqtt_topicpath=monitor`),
    /// at c796328d79363a91fc68ba0c6f7d3ddbed5e79ed.
    static let monitorBeacon = Message(
        topic: "monitor/pi-lobby/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-40000-1",
        payload: #"{"id":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-40000-1","confidence":"100","name":"Unknown","type":"APPLE_IBEACON","rssi":"-67","mac":"C4:5B:BE:00:00:07","report_delay":"0","observed_interval":"-1","power":"-59","movement":"","retained":"false","timestamp":"2026-11-26T10:00:00+0000","version":"0.2.200"}"#)

    /// A measured-power byte of 0x3B: `POWER - 256` = -197.
    static let monitorPowerWrapped = Message(
        topic: "monitor/pi-lobby/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2",
        payload: #"{"id":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2","confidence":"100","name":"Unknown","type":"APPLE_IBEACON","rssi":"-90","mac":"C4:5B:BE:00:00:08","report_delay":"1","observed_interval":"-1","power":"-197","movement":"","retained":"false","timestamp":"2026-11-26T10:00:01+0000","version":"0.2.200"}"#)

    /// The same beacon's second message, by address (`type=GENERIC_BEACON_PUBLIC`).
    static let monitorByAddress = Message(
        topic: "monitor/pi-lobby/C4:5B:BE:00:00:07",
        payload: #"{"id":"C4:5B:BE:00:00:07","confidence":"100","name":"Unknown","manufacturer":"Unknown","type":"GENERIC_BEACON_PUBLIC","report_delay":"0","observed_interval":"-1","rssi":"-67","flags":"","movement":"none","retained":"false","timestamp":"2026-11-26T10:00:00+0000","version":"0.2.200"}"#)

    /// `support/mqtt` `mqtt_announce_online`, and the will "offline".
    static let monitorOnline = Message(topic: "monitor/pi-lobby/status", payload: "online")
}
