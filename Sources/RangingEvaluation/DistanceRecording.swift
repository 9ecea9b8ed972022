/// RSSI heard at known distances over time: one receiver, one transmitter, one place.
/// The real-data side of the ranging benchmark (the Herald recordings, `HeraldRecordings`) is a set of these.
public struct DistanceRecording: Sendable {
    public struct Sample: Hashable, Sendable {
        /// Seconds since the recording started.
        public var time: Double
        public var rssi: Int
        /// The true distance, metres.
        public var distance: Double
    }

    public var name: String
    /// Who heard whom ("Pixel 2 hears Galaxy A20").
    public var receiver: String
    /// Where: recordings of one place share a receiver profile in the benchmark.
    public var place: String
    public var samples: [Sample]

    public init(name: String, receiver: String, place: String, samples: [Sample]) {
        self.name = name
        self.receiver = receiver
        self.place = place
        self.samples = samples
    }

    /// The distances measured, ascending.
    public var distances: [Double] { Set(samples.map(\.distance)).sorted() }

    /// The samples at one distance, in time order.
    public func samples(at distance: Double) -> [Sample] {
        samples.filter { $0.distance == distance }.sorted { $0.time < $1.time }
    }

    /// Why a recording file cannot be read; says the file, the line and what was expected.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Parses `seconds,rssi,distance_cm` text (a header line, then one sample per line).
    /// Every value is checked: a bad line is an error naming it, never a crash.
    public static func parse(csv text: String, name: String, receiver: String, place: String) throws(ParseError) -> DistanceRecording {
        var samples: [Sample] = []
        var lineNumber = 0
        // By bytes: Swift's String takes "\r\n" for one character, which a split at "\n" misses.
        for bytes in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let content = Substring(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
            if content.isEmpty { continue }
            if lineNumber == 1 {
                guard content == "seconds,rssi,distance_cm" else {
                    throw ParseError(description: "\(name): line 1 is `\(content.prefix(60))`; expected the header `seconds,rssi,distance_cm`")
                }
                continue
            }
            let fields = content.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 3, let seconds = Int(fields[0]), let rssi = Int(fields[1]), let centimetres = Int(fields[2]),
                seconds >= 0, seconds <= 10_000_000, (-127...20).contains(rssi), (0...100_000).contains(centimetres)
            else {
                throw ParseError(description: "\(name): line \(lineNumber) is `\(content.prefix(60))`; expected whole seconds ≥ 0, an RSSI of −127…20 dBm and a distance of 0–100000 cm")
            }
            samples.append(Sample(time: Double(seconds), rssi: rssi, distance: Double(centimetres) / 100))
        }
        guard !samples.isEmpty else { throw ParseError(description: "\(name): no samples") }
        return DistanceRecording(name: name, receiver: receiver, place: place, samples: samples)
    }
}
