#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HCI

/// A failed system call: which call and the `errno` it left. Transports turn these into
/// ``HCITransportError``s that say what to do; this type only carries the facts.
public struct POSIXCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `"bind"`.
    public var call: String
    /// The `errno` value, e.g. `EAFNOSUPPORT`.
    public var code: Int32

    public init(_ call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// The error the calling thread's `errno` holds right now.
    public static func lastError(of call: String) -> POSIXCallError {
        POSIXCallError(call, code: errno)
    }

    /// The C library's wording for `code`, e.g. "Connection refused".
    public var reason: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    public var description: String { "\(call): \(reason) (errno \(code))" }
}
