import BeaconCore

/// A named spot (or walk) on an air where controllers can be opened, e.g. the place
/// `cupertino/tour` of `virtual:default/cupertino/tour`. Scenarios define places; the
/// transport spec names them.
public struct VirtualPlace: Hashable, Sendable {
    /// Where a controller opened here is, or how it moves.
    public var motion: Motion
    /// For a place that is a plan (a venue): the plan's top-left corner on the air, so that
    /// `PLACE@X,Y` means the point (X, Y) of that plan. `nil` for places that take no coordinates.
    public var planOrigin: PlanPoint?
    /// `false` to open a controller without extended advertising here (a Bluetooth 4.x
    /// controller: legacy commands only).
    public var supportsExtendedAdvertising: Bool

    public init(motion: Motion, planOrigin: PlanPoint? = nil, supportsExtendedAdvertising: Bool = true) {
        self.motion = motion
        self.planOrigin = planOrigin
        self.supportsExtendedAdvertising = supportsExtendedAdvertising
    }

    /// A controller standing at `point`.
    public static func point(_ point: PlanPoint) -> VirtualPlace {
        VirtualPlace(motion: .fixed(point))
    }
}
