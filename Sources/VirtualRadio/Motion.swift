import BeaconCore

/// A path walked at constant speed through a list of waypoints on the plan: how a person
/// auditing a venue with a scanner in hand moves.
public struct Walk: Hashable, Sendable {
    public let waypoints: [PlanPoint]
    /// Metres per second (a walk through a shop is about 1 m/s).
    public let speed: Double
    /// After the last waypoint, walk back to the first and start again; otherwise stay at
    /// the last waypoint.
    public let loops: Bool
    /// Distance from the first waypoint to each waypoint along the path (closing segment
    /// included when looping), for finding the current segment by bisection.
    private let cumulativeLengths: [Double]

    /// Fails on an empty list, a non-finite coordinate, or a speed that is not a positive
    /// finite number.
    public init(waypoints: [PlanPoint], speed: Double = 1.0, loops: Bool = false) throws(VirtualRadioError) {
        guard let first = waypoints.first else {
            throw VirtualRadioError("a walk needs at least one waypoint")
        }
        guard waypoints.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            throw VirtualRadioError("a walk's waypoints must have finite coordinates")
        }
        guard speed.isFinite, speed > 0 else {
            throw VirtualRadioError("a walk's speed must be a positive number of metres per second, not \(speed)")
        }
        self.waypoints = waypoints
        self.speed = speed
        self.loops = loops
        var lengths: [Double] = [0]
        var previous = first
        for point in waypoints.dropFirst() + (loops ? [first] : []) {
            lengths.append((lengths.last ?? 0) + Self.distance(previous, point))
            previous = point
        }
        cumulativeLengths = lengths
    }

    /// Length of one pass in metres (back to the start included when looping).
    public var length: Double { cumulativeLengths.last ?? 0 }

    /// Where the walker is `elapsedSeconds` after setting off from the first waypoint.
    public func position(afterSeconds elapsedSeconds: Double) -> PlanPoint {
        guard let first = waypoints.first else { return PlanPoint(x: 0, y: 0) }
        let total = length
        guard total > 0, elapsedSeconds > 0 else { return first }
        var travelled = elapsedSeconds * speed
        if loops {
            travelled = travelled.truncatingRemainder(dividingBy: total)
        } else if travelled >= total {
            return waypoints.last ?? first
        }
        // The last cumulative length not beyond `travelled` starts the current segment.
        var low = 0
        var high = cumulativeLengths.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if cumulativeLengths[middle] <= travelled { low = middle } else { high = middle }
        }
        let start = waypoints[low % waypoints.count]
        let end = waypoints[high % waypoints.count]
        let segment = cumulativeLengths[high] - cumulativeLengths[low]
        guard segment > 0 else { return end }
        let fraction = (travelled - cumulativeLengths[low]) / segment
        return PlanPoint(x: start.x + (end.x - start.x) * fraction, y: start.y + (end.y - start.y) * fraction)
    }

    static func distance(_ a: PlanPoint, _ b: PlanPoint) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }
}

/// Where a virtual controller is over time: standing at a point, or walking a path that
/// starts when the controller joins the air.
public enum Motion: Hashable, Sendable {
    case fixed(PlanPoint)
    case walking(Walk)

    /// The position `elapsedSeconds` after the controller joined the air.
    public func position(afterSeconds elapsedSeconds: Double) -> PlanPoint {
        switch self {
        case .fixed(let point): return point
        case .walking(let walk): return walk.position(afterSeconds: elapsedSeconds)
        }
    }

    /// The origin of the plan: where a controller stands unless told otherwise.
    public static let origin = Motion.fixed(PlanPoint(x: 0, y: 0))
}
