import Synchronization

/// What a series counts, as the exposition format's `# TYPE` line says it.
public enum MetricType: String, Hashable, Sendable {
    /// Only ever goes up (restarts at 0 with the process); named `…_total`.
    case counter
    /// Goes up and down: a count at a moment.
    case gauge
}

/// One label of a series: `state="ok"`.
public struct MetricLabel: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One series of a family at the moment of a scrape: its labels and its value.
public struct MetricSample: Hashable, Sendable {
    public var labels: [MetricLabel]
    public var value: Double

    public init(_ value: Double, labels: [MetricLabel] = []) {
        self.labels = labels
        self.value = value
    }

    public init(_ value: Int, labels: [MetricLabel] = []) {
        self.init(Double(value), labels: labels)
    }
}

/// The metrics of one process, as Prometheus scrapes them (text exposition format 0.0.4).
///
/// A family is registered once with a collector, which is asked for the family's samples at
/// each scrape, on the scraping thread: the code being measured never pays for a scrape, and
/// a collector reads counters that code keeps anyway (an atomic, a snapshot under a lock). A
/// collector must be quick and must not block.
public final class MetricsRegistry: Sendable {
    private struct Family: Sendable {
        var name: String
        var help: String
        var type: MetricType
        var collect: @Sendable () -> [MetricSample]
    }

    private let families = Mutex<[String: Family]>([:])

    public init() {}

    /// Registers the family `name` (replacing one of that name). Names are the program's own
    /// constants: one outside the format (`[a-zA-Z_:][a-zA-Z0-9_:]*`) is a programming error.
    public func register(
        _ name: String, help: String, type: MetricType, collect: @escaping @Sendable () -> [MetricSample]
    ) {
        precondition(Self.isMetricName(name), "not a metric name: \(name)")
        families.withLock { $0[name] = Family(name: name, help: help, type: type, collect: collect) }
    }

    /// A family of one series without labels.
    public func register(_ name: String, help: String, type: MetricType, value: @escaping @Sendable () -> Double) {
        register(name, help: help, type: type) { [MetricSample(value())] }
    }

    /// Every family in the text exposition format 0.0.4, families in the order of their names,
    /// each with its `# HELP` and `# TYPE` lines and its series in the order its collector gave.
    public func exposition() -> String {
        // Collected outside the lock: a collector may take locks of its own.
        let registered = families.withLock { $0.values.sorted { $0.name < $1.name } }
        var text = ""
        text.reserveCapacity(registered.count * 160)
        for family in registered {
            text += "# HELP \(family.name) \(Self.escapedHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.collect() {
                text += family.name
                if !sample.labels.isEmpty {
                    text += "{"
                    text += sample.labels.map { label in
                        precondition(Self.isLabelName(label.name), "not a label name: \(label.name)")
                        return "\(label.name)=\"\(Self.escapedLabelValue(label.value))\""
                    }.joined(separator: ",")
                    text += "}"
                }
                text += " \(Self.formatted(sample.value))\n"
            }
        }
        return text
    }

    /// `# HELP` text: a backslash and a line feed are escaped (`\\`, `\n`), nothing else.
    static func escapedHelp(_ help: String) -> String {
        var escaped = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A label value: a backslash, a double quote and a line feed are escaped.
    static func escapedLabelValue(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A value as Go's `ParseFloat` reads it: whole numbers without a fraction, `NaN`,
    /// `+Inf`, `-Inf`.
    static func formatted(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        // Whole numbers up to 2^53 are exact as integers: `42`, not `42.0`.
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return "\(value)"
    }

    static func isMetricName(_ name: String) -> Bool {
        isName(name, allowingColons: true)
    }

    /// Label names starting with `__` are Prometheus's own.
    static func isLabelName(_ name: String) -> Bool {
        isName(name, allowingColons: false) && !name.hasPrefix("__")
    }

    private static func isName(_ name: String, allowingColons: Bool) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || (allowingColons && byte == 0x3A)
        }
        guard isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
