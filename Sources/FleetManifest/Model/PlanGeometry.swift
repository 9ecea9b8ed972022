import BeaconCore

/// A length for messages: `24`, not `24.0`; `3.5` as is.
func metresText(_ value: Double) -> String {
    NumberText.plain(value)
}
