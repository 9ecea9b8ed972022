import BeaconCore

/// Proximity UUIDs that beacons ship with or that sample code made popular. A fleet on one
/// of them shares its identity space with every unconfigured beacon and tutorial app
/// nearby, so its regions match strangers' beacons and its identities collide with theirs.
///
/// Sources: the vendors' SDKs and documentation, and the vendor tables of public beacon
/// scanners (which agree on these values).
enum VendorUUIDs {
    static let known: [ProximityUUID: String] = {
        let table: [(String, String)] = [
            ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "Apple's AirLocate sample code (and many generic beacons' factory setting)"),
            ("5A4BCFCE-174E-4BAC-A814-092E77F6B7E5", "Apple's AirLocate sample code"),
            ("74278BDA-B644-4520-8F0C-720EAF059935", "Apple's AirLocate sample code (also Glimworm's default)"),
            ("B9407F30-F5F8-466E-AFF9-25556B57FE6D", "Estimote"),
            ("F7826DA6-4FA2-4E98-8024-BC5B71E0893E", "Kontakt.io"),
            ("2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6", "Radius Networks (RadBeacon)"),
            ("61687109-905F-4436-91F8-E602F514C96D", "BlueCats"),
            ("23A01AF0-232A-4518-9C0E-323FB773F5EF", "Sensoro"),
            ("FDA50693-A4E2-4FB1-AFCF-C6EB07647825", "WeChat's iBeacon default (used by many generic beacons)"),
            ("8DEEFBB9-F738-4297-8040-96668BB44281", "Roximity"),
            ("F0018B9B-7509-4C31-A905-1A27D39C003C", "Beaconinside"),
            ("20CAE8A0-A9CF-11E3-A5E2-0800200C9A66", "Onyx Beacon"),
            ("ACFD065E-C3C0-11E3-9BBE-1A514932AC01", "Blue Up (BlueBeacon)"),
            ("EBEFD083-70A2-47C8-9837-E7B5634DF524", "EasiBeacon"),
            ("B0702980-A295-A8AB-F734-031A98A512DE", "RedBear"),
            ("F2A74FC4-7625-44DB-9B08-CB7E130B2029", "Ubudu"),
            ("19D5F76A-FD04-5AA3-B16E-E93277163AF6", "PassKit"),
            ("85FC11DD-4CCA-4B27-AFB3-876854BB5C3B", "SmartBeacon"),
        ]
        var known: [ProximityUUID: String] = [:]
        for (text, vendor) in table {
            // The table is literal text checked by the tests; a typo would drop one entry
            // rather than crash.
            if let uuid = try? ProximityUUID(parsing: text) { known[uuid] = vendor }
        }
        return known
    }()

    /// Who made `uuid` a default, if anyone did.
    static func vendor(of uuid: ProximityUUID) -> String? { known[uuid] }
}
