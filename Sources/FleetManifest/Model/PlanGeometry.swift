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

/// A length for messages: `24`, not `24.0`; `3.5` as is.
func metresText(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
