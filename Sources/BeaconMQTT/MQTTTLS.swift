import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TLS for `mqtts://`: the certificate authorities to trust (a file or a folder; by default
/// the system's), and optionally a client certificate and key.
public struct MQTTTLS: Hashable, Sendable {
    public var caFile: String?
    public var caDirectory: String?
    public var certificateFile: String?
    public var keyFile: String?

    public static let systemCADirectory = "/etc/ssl/certs"
    /// Where beaconctl reads them from; named in every message about them.
    public static let caFileVariable = "BEACONCTL_MQTT_CA_FILE"
    public static let certificateFileVariable = "BEACONCTL_MQTT_CERT_FILE"
    public static let keyFileVariable = "BEACONCTL_MQTT_KEY_FILE"

    public init(caFile: String? = nil, caDirectory: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.caDirectory = caFile == nil && caDirectory == nil ? Self.systemCADirectory : caDirectory
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// From `BEACONCTL_MQTT_CA_FILE`, `…_CERT_FILE` and `…_KEY_FILE` (empty values count as unset).
    public static func fromEnvironment(_ environment: [String: String]) -> MQTTTLS {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        return MQTTTLS(caFile: value(caFileVariable), certificateFile: value(certificateFileVariable), keyFile: value(keyFileVariable))
    }

    /// Checks the files before anything connects, naming the one that is wrong and why:
    /// missing, unreadable, not PEM, a certificate without its key (or the reverse), a key
    /// that is not the certificate's, a client certificate past its end date.
    /// libmosquitto would only say "Invalid function arguments provided", or fail later
    /// while connecting.
    public func checkFiles() throws(MQTTError) {
        if let caFile {
            try Self.checkPEM(caFile, variable: Self.caFileVariable, label: "CERTIFICATE", what: "CA certificate")
        } else if let caDirectory {
            var status = stat()
            guard stat(caDirectory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw .tls("the CA folder \(caDirectory) does not exist: set \(Self.caFileVariable) to the CA certificate that signed the broker's")
            }
        }
        switch (certificateFile, keyFile) {
        case (nil, nil):
            break
        case (_?, nil):
            throw .tls("\(Self.certificateFileVariable) is set but \(Self.keyFileVariable) is not: a client certificate needs its private key")
        case (nil, _?):
            throw .tls("\(Self.keyFileVariable) is set but \(Self.certificateFileVariable) is not: a private key needs its client certificate")
        case (let certificate?, let key?):
            try Self.checkPEM(certificate, variable: Self.certificateFileVariable, label: "CERTIFICATE", what: "client certificate")
            try Self.checkPEM(key, variable: Self.keyFileVariable, label: "PRIVATE KEY", what: "private key")
            try Self.checkPair(certificate: certificate, key: key)
        }
        if let caFile { try Self.checkCertificates(caFile) }
    }

    /// Readable, and PEM with a block whose label ends in `label` (`CERTIFICATE`; `PRIVATE
    /// KEY` also matches `RSA PRIVATE KEY`, `EC PRIVATE KEY`) — RFC 7468 §2's framing.
    private static func checkPEM(_ path: String, variable: String, label: String, what: String) throws(MQTTError) {
        let named = "\(variable)=\(path)"
        guard let file = fopen(path, "r") else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw .tls("\(named): cannot read the \(what): \(reason)")
        }
        defer { fclose(file) }
        // PEM is text; 4 MiB holds the largest CA bundle many times over.
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= 4 << 20 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes += buffer[0..<count] }
            if count < buffer.count {
                if ferror(file) != 0 { throw .tls("\(named): cannot read the \(what): \(String(cString: strerror(errno)))") }
                break
            }
        }
        guard bytes.count <= 4 << 20 else { throw .tls("\(named): larger than 4 MiB, not a PEM \(what)") }
        let text = String(decoding: bytes, as: UTF8.self)
        let hasBlock = text.split(whereSeparator: \.isNewline).contains { line in
            line.hasPrefix("-----BEGIN ") && line.hasSuffix("\(label)-----")
        }
        guard hasBlock else {
            let advice = label == "CERTIFICATE"
                ? "a DER file converts with `openssl x509 -inform der -in FILE -out FILE.pem`"
                : "a DER key converts with `openssl pkey -inform der -in FILE -out FILE.pem`"
            throw .tls("\(named): not a PEM \(what) (no -----BEGIN …\(label)----- line); \(advice)")
        }
    }

    /// The certificate and key load, belong together, and the certificate is in its dates.
    private static func checkPair(certificate: String, key: String) throws(MQTTError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("OpenSSL could not create a TLS context: \(openSSLReason())") }
        defer { SSL_CTX_free(context) }
        // A key protected by a passphrase would make OpenSSL prompt on the terminal; say so instead.
        SSL_CTX_set_default_passwd_cb(context) { _, _, _, _ in 0 }
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
            throw .tls("\(certificateFileVariable)=\(certificate): OpenSSL cannot read the client certificate: \(openSSLReason())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
            // Loading a key checks it against the certificate already loaded.
            if ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH {
                ERR_clear_error()
                throw .tls("\(keyFileVariable)=\(key) is not the key of \(certificateFileVariable)=\(certificate): give the key the certificate was issued for")
            }
            throw .tls("\(keyFileVariable)=\(key): OpenSSL cannot read the private key (\(openSSLReason())); a key protected by a passphrase is not supported: `openssl pkey -in KEY -out KEY.plain`, readable by this user only")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .tls("\(keyFileVariable)=\(key) is not the key of \(certificateFileVariable)=\(certificate): give the key the certificate was issued for")
        }
        if let loaded = SSL_CTX_get0_certificate(context), let notAfter = X509_get0_notAfter(loaded), X509_cmp_current_time(notAfter) < 0 {
            throw .tls("\(certificateFileVariable)=\(certificate): the client certificate has expired (\(Self.text(notAfter))); the broker will refuse it: renew it")
        }
        ERR_clear_error()
    }

    /// The CA file holds at least one certificate OpenSSL can read.
    private static func checkCertificates(_ caFile: String) throws(MQTTError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("OpenSSL could not create a TLS context: \(openSSLReason())") }
        defer { SSL_CTX_free(context) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
            throw .tls("\(caFileVariable)=\(caFile): OpenSSL cannot read the CA certificates: \(openSSLReason())")
        }
        ERR_clear_error()
    }

    /// OpenSSL's newest error on this thread, as its reason ("no such file", "key values
    /// mismatch"); the queue is cleared.
    static func openSSLReason() -> String {
        let code = ERR_peek_last_error()
        defer { ERR_clear_error() }
        guard code != 0, let reason = ERR_reason_error_string(code) else { return "no reason given" }
        return String(cString: reason)
    }

    /// An ASN.1 time as `2026-11-26 06:30 UTC`.
    private static func text(_ time: UnsafePointer<ASN1_TIME>) -> String {
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return "at an unreadable date" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "on \(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
    }
}
