import BeaconFleet
import BeaconCore
/// Numbers and text as coverage pictures and pages write them.

/// `−85 dBm`, with a true minus sign for pictures and pages.
func dBmText(_ value: Double) -> String {
    let number = numberText(abs(value), places: 1)
    return (value < 0 ? "\u{2212}" : "") + number + " dBm"
}

/// A number with at most `places` decimals and no trailing zeros: `12`, `12.5`, `0.25`.
/// Never in exponent form, which SVG attributes and people both read badly.
func numberText(_ value: Double, places: Int = 2) -> String {
    guard value.isFinite else { return value > 0 ? "inf" : value < 0 ? "-inf" : "nan" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return Int64(checked: value).map(String.init) ?? "\(value)" }
    let whole = Int64(scaled) / Int64(scale)
    var fraction = Int64(scaled) % Int64(scale)
    var digits = places
    while digits > 0 && fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
    }
    let sign = value < 0 && scaled > 0 ? "-" : ""
    guard digits > 0 else { return sign + String(whole) }
    let fractionText = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
}

/// `−85`, with a true minus sign.
func signedText(_ value: Double) -> String {
    (value < 0 ? "\u{2212}" : "") + numberText(abs(value), places: 1)
}

/// Text made safe for XML character data and attribute values.
func xmlEscaped(_ text: String) -> String {
    XMLText.escaped(text, inAttribute: true)
}
