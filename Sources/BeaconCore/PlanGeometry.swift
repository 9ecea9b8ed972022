/// The size of a venue's floor plan in metres; positions are measured from its top-left corner.
public struct PlanSize: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Whether a point lies on the plan, edges included.
    public func contains(_ point: PlanPoint) -> Bool {
        point.x >= 0 && point.y >= 0 && point.x <= width && point.y <= height
    }
}

/// A point on a venue's floor plan, in metres.
public struct PlanPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
