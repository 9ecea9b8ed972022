#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Herald project's Edison-robot recordings (see the README beside them for the
/// source, licence and what was changed). Public data of another project: they are not
/// part of this repository but kept beside every checkout, in
/// `../shared/datasets/herald-edison/` from the repository's top folder.
public enum HeraldRecordings {
    /// The environment variable naming the folder of the recordings.
    public static let environmentVariable = "BEACONCTL_HERALD_DATA"

    /// Where the recordings are looked for, by precedence: the folder given on the command
    /// line, then `BEACONCTL_HERALD_DATA`, then `../shared/datasets/herald-edison` beside
    /// the repository this was built from.
    public static func folder(given: String? = nil, environment: [String: String]) -> String {
        if let given, !given.isEmpty { return given }
        if let named = environment[environmentVariable], !named.isEmpty { return named }
        return defaultFolder
    }

    /// `../shared/datasets/herald-edison` from the top of the checkout this file was built
    /// from (Sources/RangingEvaluation/ is two levels below it).
    public static var defaultFolder: String {
        var path = "\(#filePath)"
        for _ in 0..<3 {
            guard let slash = path.lastIndex(of: "/") else { return "../shared/datasets/herald-edison" }
            path = String(path[..<slash])
        }
        return path + "/../shared/datasets/herald-edison"
    }

    /// What to say when the recordings are not at `folder`: what is needed, where it comes
    /// from, and how to point at it.
    public static func missingAdvice(_ folder: String) -> String {
        "the Herald recordings are not at \(folder): " + whatIsNeeded
    }

    /// What the real-data benchmark and tests need, where it comes from, how to point at it.
    static let whatIsNeeded =
        "ranging's real-data benchmark and tests need the Herald project's "
        + "Edison recordings (29 files YYYYMMDD-HHMM-A.csv of `seconds,rssi,distance_cm`, Apache-2.0, from "
        + "reference-data/rssi-raw-edison of https://github.com/theheraldproject/herald-analysis, converted as "
        + "docs/ranging.md describes). They live outside the repository, in ../shared/datasets/herald-edison/ beside "
        + "the checkout; pass another folder with --real-data DIR or \(environmentVariable)=DIR"

    /// Whether `folder` exists and can be listed.
    public static func exists(_ folder: String) -> Bool {
        guard let handle = opendir(folder) else { return false }
        closedir(handle)
        return true
    }

    /// Phones of each recording session: (phone A, phone B). File `…-A` is what A heard.
    static let phones: [String: (String, String)] = [
        "20210102-1128": ("iPhone 6S", "Pixel 2"),
        "20210104-1422": ("Pixel 2", "Galaxy A20"),
        "20210105-1754": ("Galaxy A10", "Galaxy A20"),
        "20210106-0815": ("Galaxy Note 8", "Pixel 2"),
        "20210106-1501": ("Galaxy Note 8", "Pixel 2"),
        "20210106-2251": ("Galaxy Note 8", "Pixel 2"),
        "20210107-1123": ("Galaxy A10", "Galaxy A20"),
        "20210107-2245": ("iPhone 6S", "Pixel 2"),
        "20210108-1423": ("iPhone 6S", "iPhone 5S"),
        "20210109-2342": ("iPhone 6S", "iPhone 5S"),
        "20210110-2247": ("Galaxy A20", "Pixel 2"),
        "20210111-1015": ("iPhone 6 Plus", "iPhone 5S"),
        "20210111-2252": ("Galaxy A10", "Galaxy A20"),
        "20210112-2303": ("Pixel 2", "Galaxy A10"),
        "20210113-2034": ("iPhone 6 Plus", "iPhone 6S"),
    ]

    /// From 2021-01-09 the cable car was raised and the range extended: another place.
    static func place(of session: String) -> String {
        session < "20210109" ? "Herald rig 1" : "Herald rig 2"
    }

    /// Every recording in `directory` named `YYYYMMDD-HHMM-A.csv` or `…-B.csv`, by name.
    public static func load(directory: String) throws(DistanceRecording.ParseError) -> [DistanceRecording] {
        guard let names = listing(directory) else {
            throw DistanceRecording.ParseError(description: "\(directory): cannot list it (\(String(cString: strerror(errno)))); \(whatIsNeeded)")
        }
        var recordings: [DistanceRecording] = []
        for file in names.sorted() where file.hasSuffix(".csv") {
            let name = String(file.dropLast(4))
            let session = String(name.dropLast(2))
            guard let (phoneA, phoneB) = phones[session], name.hasSuffix("-A") || name.hasSuffix("-B") else { continue }
            let receiver = name.hasSuffix("-A") ? "\(phoneA) hears \(phoneB)" : "\(phoneB) hears \(phoneA)"
            guard let text = readText("\(directory)/\(file)") else {
                throw DistanceRecording.ParseError(description: "\(directory)/\(file): cannot read it (\(String(cString: strerror(errno))))")
            }
            recordings.append(try DistanceRecording.parse(csv: text, name: name, receiver: receiver, place: place(of: session)))
        }
        guard !recordings.isEmpty else {
            throw DistanceRecording.ParseError(description: "\(directory): no Herald recordings (YYYYMMDD-HHMM-A.csv) in it")
        }
        return recordings
    }

    private static func listing(_ directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A whole small file (the recordings are a few hundred kilobytes each; larger is refused).
    private static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if bytes.count > 64 << 20 { return nil }
            if count < buffer.count { break }
        }
        guard ferror(file) == 0 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
