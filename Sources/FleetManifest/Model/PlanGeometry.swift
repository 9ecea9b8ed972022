/// A length for messages: `24`, not `24.0`; `3.5` as is.
func metresText(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
