/// Numbers as people write them in messages, manifests and exports.
public enum NumberText {
    /// `24`, not `24.0`; `3.5` and `1e+20` as Swift writes them. Whole values below 10^15
    /// (exact in a `Double`, and within `Int`) are written without a fraction.
    public static func plain(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension NumberText {
    /// `1 beacon`, `0 beacons`, `3 beacons`: a count and its noun, made plural (for every
    /// count but one) by an added `s`, which is all the nouns of these messages need.
    public static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(Self.noun(noun, for: value))"
    }

    /// `beacon` for a count of one, `beacons` for any other: the noun alone, for messages
    /// that put the count elsewhere or leave it out.
    public static func noun(_ noun: String, for count: Int) -> String {
        count == 1 ? noun : noun + "s"
    }
}
