import BeaconCore
import HCI
extension HCITransportSpec {
    /// Parses a transport spec such as `hci0`, `tcp-client:127.0.0.1:6402` or
    /// `serial:/dev/ttyACM0,1000000,rtscts`. Throws `.invalidSpec` naming what is wrong and
    /// listing ``acceptedForms``.
    public init(parsing text: String) throws(HCITransportError) {
        if let device = text.removingPrefix("hci-socket:") {
            self = .kernelSocket(device: try Self.deviceIndex(device, in: text))
        } else if let device = text.removingPrefix("hci-user:") {
            self = .kernelUserChannel(device: try Self.deviceIndex(device, in: text))
        } else if let endpoint = text.removingPrefix("tcp-client:") {
            let (host, port) = try Self.hostAndPort(endpoint, in: text)
            self = .tcpClient(host: host, port: port)
        } else if let settings = text.removingPrefix("serial:") {
            self = try Self.serialPort(settings, in: text)
        } else if text == "virtual" {
            self = .virtual(scenario: nil)
        } else if let scenario = text.removingPrefix("virtual:") {
            guard !scenario.isEmpty, !scenario.contains(where: \.isControlCharacter) else {
                throw Self.invalid(text, "name a scenario after \"virtual:\", or write just \"virtual\"")
            }
            self = .virtual(scenario: scenario)
        } else if let device = text.removingPrefix("hci"), device.first?.isNumber ?? true {
            self = .kernelSocket(device: try Self.deviceIndex(device, in: text))
        } else {
            throw Self.invalid(text, "unknown kind of transport")
        }
    }

    private static func invalid(_ text: String, _ reason: String) -> HCITransportError {
        HCITransportError(
            .invalidSpec,
            "invalid transport \"\(text)\": \(reason). Accepted forms: "
                + acceptedForms.joined(separator: "; "))
    }

    private static func deviceIndex(_ digits: String, in text: String) throws(HCITransportError) -> UInt16 {
        guard let index = decimal(digits, maximumDigits: 5), index <= Int(largestDeviceIndex) else {
            throw invalid(
                text,
                "the controller index must be a number from 0 to \(largestDeviceIndex), as in hci0")
        }
        return UInt16(index)
    }

    private static func hostAndPort(
        _ endpoint: String, in text: String
    ) throws(HCITransportError) -> (host: String, port: UInt16) {
        let host: Substring
        let portText: Substring
        if endpoint.hasPrefix("[") {
            guard let closing = endpoint.firstIndex(of: "]") else {
                throw invalid(text, "the IPv6 address has no closing \"]\"")
            }
            host = endpoint[endpoint.index(after: endpoint.startIndex)..<closing]
            let afterAddress = endpoint[endpoint.index(after: closing)...]
            guard afterAddress.hasPrefix(":") else {
                throw invalid(text, "missing \":PORT\" after the IPv6 address, as in tcp-client:[::1]:6402")
            }
            portText = afterAddress.dropFirst()
            guard isIPv6Literal(host) else {
                throw invalid(text, "\"\(host)\" is not an IPv6 address")
            }
        } else {
            guard let colon = endpoint.lastIndex(of: ":") else {
                throw invalid(
                    text, "missing port: write tcp-client:HOST:PORT, as in tcp-client:127.0.0.1:6402")
            }
            host = endpoint[..<colon]
            portText = endpoint[endpoint.index(after: colon)...]
            guard !host.contains(":") else {
                throw invalid(text, "put an IPv6 address in brackets, as in tcp-client:[::1]:6402")
            }
            guard isHostName(host) else {
                throw invalid(
                    text, "\"\(host)\" is not a host name or IPv4 address (letters, digits, \"-\" and \".\")")
            }
        }
        guard let port = decimal(portText, maximumDigits: 5), (1...Int(UInt16.max)).contains(port) else {
            throw invalid(text, "the port must be a number from 1 to 65535, not \"\(portText)\"")
        }
        return (String(host), UInt16(port))
    }

    private static func serialPort(_ settings: String, in text: String) throws(HCITransportError) -> Self {
        let fields = settings.split(separator: ",", omittingEmptySubsequences: false)
        let path = fields.first ?? ""
        guard path.hasPrefix("/") else {
            let example = path.isEmpty ? "serial:/dev/ttyACM0" : "serial:/dev/\(path)"
            throw invalid(text, "give the serial device's full path, as in \(example)")
        }
        var baudRate: Int?
        var hardwareFlowControl = false
        for option in fields.dropFirst() {
            if option == "rtscts" {
                guard !hardwareFlowControl else { throw invalid(text, "\"rtscts\" is given twice") }
                hardwareFlowControl = true
            } else if let rate = decimal(option, maximumDigits: 8) {
                guard baudRate == nil else { throw invalid(text, "more than one baud rate is given") }
                guard SerialBaudRates.supported.contains(rate) else {
                    let rates = SerialBaudRates.supported.map(String.init).joined(separator: ", ")
                    throw invalid(text, "\(rate) baud is not supported; use one of \(rates)")
                }
                baudRate = rate
            } else {
                throw invalid(text, "unknown serial option \"\(option)\": give a baud rate or \"rtscts\"")
            }
        }
        return .serial(
            path: String(path), baudRate: baudRate ?? SerialBaudRates.standard,
            hardwareFlowControl: hardwareFlowControl)
    }

    /// A run of ASCII digits, no sign, no spaces: what a person types for an index or port.
    private static func decimal<Digits: StringProtocol>(_ text: Digits, maximumDigits: Int) -> Int? {
        guard !text.isEmpty, text.count <= maximumDigits,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// A DNS name or dotted IPv4 address; resolution decides whether it exists.
    private static func isHostName(_ host: Substring) -> Bool {
        !host.isEmpty && host.utf8.count <= 253
            && host.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic
                        || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_")
            }
    }

    /// Hex groups and colons (an embedded IPv4 tail allowed), optionally `%zone`.
    private static func isIPv6Literal(_ host: Substring) -> Bool {
        let address = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        guard let groups = address.first, groups.contains(":"),
            groups.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isASCIIHexDigit
                        || $0 == ":" || $0 == ".")
            })
        else { return false }
        if address.count == 2 {
            return isHostName(address[1])
        }
        return true
    }
}

extension String {
    /// The rest of the string after `prefix`, or `nil` when it does not start with it.
    fileprivate func removingPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}

extension Character {
    fileprivate var isControlCharacter: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
