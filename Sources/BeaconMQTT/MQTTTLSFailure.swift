/// Why a TLS connection to the broker failed, told from OpenSSL's words as libmosquitto
/// logs them ("OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed")
/// and, for a certificate the client rejected, OpenSSL's verdict on it.
///
/// Every one is permanent — the same files and the same broker fail the same way — except
/// `other`, an error that is not about certificates or versions (a broker going away in the
/// middle of a handshake).
public enum MQTTTLSFailure: Hashable, Sendable {
    /// The broker requires a client certificate and none was given.
    case clientCertificateRequired
    /// The broker did not accept the client certificate (an alert: "unknown ca", "bad certificate").
    case clientCertificateRejected(alert: String)
    case clientCertificateExpired
    /// The client does not trust the broker's certificate (OpenSSL's verdict, e.g. "unable
    /// to get local issuer certificate").
    case brokerCertificateUntrusted(verdict: String)
    case brokerCertificateExpired(verdict: String)
    /// The broker's certificate is valid but names another host.
    case hostNameMismatch
    /// No TLS version both speak, or not TLS at all on that port.
    case protocolVersion(reason: String)
    case other(reason: String)

    public var isPermanent: Bool {
        if case .other = self { return false }
        return true
    }

    /// OpenSSL's X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CERT_HAS_EXPIRED (x509_vfy.h).
    private static let dateVerdicts: Set<Int> = [9, 10]
    /// X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH.
    private static let nameVerdicts: Set<Int> = [62, 64]

    /// The failure one line of libmosquitto's error log tells of, or `nil` when the line is
    /// not about TLS. `verdict` is OpenSSL's verification result for the broker's
    /// certificate (code and words) when the line says verification failed.
    static func classify(logLine line: String, verdict: (code: Int, text: String)?, hasClientCertificate: Bool) -> MQTTTLSFailure? {
        // libmosquitto's own host name check (lib/tls_mosq.c) logs this before OpenSSL's
        // "certificate verify failed".
        if line.contains("host name verification failed") { return .hostNameMismatch }
        guard line.hasPrefix("OpenSSL Error") else { return nil }
        // error:CODE:LIBRARY:FUNCTION:REASON — the reason is the last field.
        let reason = line.split(separator: ":", omittingEmptySubsequences: false).last.map { String($0) } ?? line
        let words = reason.lowercased()
        if words.contains("certificate verify failed") {
            guard let verdict else { return .brokerCertificateUntrusted(verdict: "certificate verify failed") }
            if nameVerdicts.contains(verdict.code) { return .hostNameMismatch }
            if dateVerdicts.contains(verdict.code) { return .brokerCertificateExpired(verdict: verdict.text) }
            return .brokerCertificateUntrusted(verdict: verdict.text)
        }
        if words.contains("alert certificate required") { return .clientCertificateRequired }
        // TLS 1.2 brokers answer a missing client certificate with a plain handshake failure.
        if words.contains("alert handshake failure") && !hasClientCertificate { return .clientCertificateRequired }
        if words.contains("alert certificate expired") { return .clientCertificateExpired }
        for alert in ["alert unknown ca", "alert bad certificate", "alert certificate unknown", "alert unsupported certificate", "alert certificate revoked", "alert access denied"]
        where words.contains(alert) {
            return .clientCertificateRejected(alert: reason.trimmingSpaces)
        }
        for version in ["unsupported protocol", "alert protocol version", "wrong version number", "no protocols available", "version too low", "packet length too long", "record layer failure"]
        where words.contains(version) {
            return .protocolVersion(reason: reason.trimmingSpaces)
        }
        return .other(reason: reason.trimmingSpaces)
    }

    /// What happened and what to set, for `broker` reached with `tls`.
    public func explanation(broker: MQTTBrokerURL, tls: MQTTTLS) -> String {
        let certificate = tls.certificateFile.map { "\(MQTTTLS.certificateFileVariable)=\($0)" } ?? MQTTTLS.certificateFileVariable
        let trusted = tls.caFile.map { "\(MQTTTLS.caFileVariable)=\($0)" } ?? "the system's CAs (\(tls.caDirectory ?? MQTTTLS.systemCADirectory))"
        switch self {
        case .clientCertificateRequired:
            return "the broker requires a client certificate and none was given: set \(MQTTTLS.certificateFileVariable) and \(MQTTTLS.keyFileVariable) to this client's certificate and key"
        case .clientCertificateRejected(let alert):
            return "the broker does not accept the client certificate \(certificate) (TLS alert: \(alert)): use a certificate issued by a CA the broker trusts (its `cafile`)"
        case .clientCertificateExpired:
            return "the broker refused the client certificate \(certificate) as expired: renew it"
        case .brokerCertificateUntrusted(let verdict):
            return "the broker's certificate is not trusted (\(verdict)) by \(trusted): set \(MQTTTLS.caFileVariable) to the CA certificate that signed the broker's"
        case .brokerCertificateExpired(let verdict):
            return "the broker's certificate is out of its dates (\(verdict)): the broker needs a renewed certificate (or this machine's clock is wrong)"
        case .hostNameMismatch:
            return "the broker's certificate does not name \(broker.host): connect with a name its certificate holds (its subjectAltName), or reissue the broker's certificate for \(broker.host)"
        case .protocolVersion(let reason):
            return "no TLS version in common with \(broker.host):\(broker.port) (\(reason)): beaconctl speaks TLS 1.2 and 1.3; is that port a TLS listener (mqtts://), not plain MQTT (mqtt://)?"
        case .other(let reason):
            return "TLS failed: \(reason)"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
