import CMosquitto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TLS handshake of our own with the broker, made only to learn why libmosquitto's failed
/// when it could not say: when the broker refuses a client certificate it sends an alert
/// and closes, and if libmosquitto has already written its CONNECT the broker's close
/// becomes a reset that discards the alert (the connection is simply "lost"). This probe
/// writes nothing after the handshake, so the alert, if any, is read.
///
/// Blocking, bounded by `timeout` per step: call it off Swift's cooperative pool.
enum MQTTTLSProbe {
    /// The failure found, or `nil` when the handshake succeeded and no alert followed
    /// within `alertWait` (then the cause lies elsewhere).
    static func diagnose(broker: MQTTBrokerURL, tls: MQTTTLS, timeout: Int = 3, alertWait: Int = 1) -> MQTTTLSFailure? {
        guard let descriptor = openConnection(broker.host, port: broker.port, timeout: timeout) else { return nil }
        defer { close(descriptor) }
        guard let context = SSL_CTX_new(TLS_client_method()) else { return nil }
        defer { SSL_CTX_free(context) }
        SSL_CTX_set_default_passwd_cb(context) { _, _, _, _ in 0 }
        guard SSL_CTX_load_verify_locations(context, tls.caFile, tls.caDirectory) == 1 else { return nil }
        if let certificate = tls.certificateFile, let key = tls.keyFile {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1, SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1
            else { return nil }
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard let ssl = SSL_new(context) else { return nil }
        defer { SSL_free(ssl) }
        // The name is checked by OpenSSL during the handshake, as libmosquitto checks it after.
        if isIPAddress(broker.host) {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), broker.host)
        } else {
            _ = SSL_set1_host(ssl, broker.host)
            // SNI, as libmosquitto sends it (SSL_set_tlsext_host_name is a macro over this).
            _ = broker.host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        }
        guard SSL_set_fd(ssl, descriptor) == 1 else { return nil }
        ERR_clear_error()
        if SSL_connect(ssl) != 1 {
            return failure(ssl, hasClientCertificate: tls.certificateFile != nil)
        }
        // TLS 1.3 brokers judge the client's certificate after the client's handshake has
        // ended: their verdict is an alert read now.
        setTimeout(descriptor, seconds: alertWait)
        var byte: UInt8 = 0
        ERR_clear_error()
        if SSL_read(ssl, &byte, 1) <= 0, SSL_get_error(ssl, -1) == SSL_ERROR_SSL {
            return failure(ssl, hasClientCertificate: tls.certificateFile != nil)
        }
        return nil
    }

    /// OpenSSL's newest error, classified as libmosquitto's log line of it would be.
    private static func failure(_ ssl: OpaquePointer, hasClientCertificate: Bool) -> MQTTTLSFailure? {
        let code = ERR_peek_last_error()
        defer { ERR_clear_error() }
        var verdict: (code: Int, text: String)?
        let result = SSL_get_verify_result(ssl)
        if result != X509_V_OK, let text = X509_verify_cert_error_string(result) { verdict = (Int(result), String(cString: text)) }
        guard code != 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { ERR_error_string_n(code, $0.baseAddress, $0.count) }
        }
        let line = "OpenSSL Error[0]: " + String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        return MQTTTLSFailure.classify(logLine: line, verdict: verdict, hasClientCertificate: hasClientCertificate)
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }

    private static func setTimeout(_ descriptor: Int32, seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A TCP connection to `host:port`, each step bounded by `timeout` seconds (Linux
    /// applies SO_SNDTIMEO to connect); `nil` when there is none.
    private static func openConnection(_ host: String, port: Int, timeout: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(first) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let entry = candidate {
            candidate = entry.pointee.ai_next
            let descriptor = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, entry.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            setTimeout(descriptor, seconds: timeout)
            if connect(descriptor, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 { return descriptor }
            close(descriptor)
        }
        return nil
    }
}
