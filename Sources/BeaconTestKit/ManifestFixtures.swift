/// Small fleet manifests that tests of several layers share.
public enum ManifestFixtures {
    public static let cornerShopUUID = "04F6CBA0-321A-40F4-BDE2-A613959BBF4B"

    /// A shop with a door (major 1, minor 1) and a till (1/2), calibrated at −59 dBm, and a
    /// back room (2/1).
    public static let cornerShop = """
        version: 1
        fleet: corner-shop
        uuid: \(cornerShopUUID)
        defaults:
          measured_power: -59
        venues:
          - id: shop
            major: 1
            beacons:
              - id: door
                minor: 1
              - id: till
                minor: 2
          - id: back
            major: 2
            beacons:
              - id: store-room
                minor: 1
        """
}
