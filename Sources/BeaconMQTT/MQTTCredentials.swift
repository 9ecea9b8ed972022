#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A user name and password for the broker, from the environment
/// (`BEACONCTL_MQTT_USERNAME`, `BEACONCTL_MQTT_PASSWORD`) or from a file whose first line
/// is the user name and second line the password — never from the command line.
public struct MQTTCredentials: Hashable, Sendable {
    public var username: String
    public var password: String?

    public static let usernameVariable = "BEACONCTL_MQTT_USERNAME"
    public static let passwordVariable = "BEACONCTL_MQTT_PASSWORD"
    /// A file: line 1 the user name, line 2 the password.
    public static let fileVariable = "BEACONCTL_MQTT_CREDENTIALS"

    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }

    /// From the environment; `nil` when no user name is set.
    public static func fromEnvironment(_ environment: [String: String]) throws(MQTTError) -> MQTTCredentials? {
        let password = environment[passwordVariable]
        guard let username = environment[usernameVariable], !username.isEmpty else {
            if password != nil {
                throw .credentials("\(passwordVariable) is set but \(usernameVariable) is not: a broker takes a password only with a user name")
            }
            return nil
        }
        return MQTTCredentials(username: username, password: password)
    }

    /// From a file: line 1 the user name, line 2 (optional) the password. Says what is
    /// wrong with the file, and warns (through `warning`) when others may read it.
    public static func fromFile(_ path: String, warning: (String) -> Void) throws(MQTTError) -> MQTTCredentials {
        guard let file = fopen(path, "r") else {
            throw .credentials("\(path): cannot open the MQTT credentials: \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var status = stat()
        if fstat(fileno(file), &status) == 0, status.st_mode & 0o077 != 0 {
            warning("\(path): the MQTT credentials can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 64 * 1024 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes += buffer[0..<count] }
            if count < buffer.count { break }
        }
        guard bytes.count <= 64 * 1024 else { throw .credentials("\(path): larger than 64 KiB, not an MQTT credentials file") }
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line[...], as: UTF8.self)
        }
        guard let username = lines.first, !username.isEmpty else {
            throw .credentials("\(path): the first line must be the MQTT user name (the second the password)")
        }
        let password = lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil
        return MQTTCredentials(username: username, password: password)
    }
}
