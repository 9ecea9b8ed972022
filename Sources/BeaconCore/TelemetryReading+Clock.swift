extension TelemetryReading {
    /// The same reading on Unix time, `offset` added to an elapsed time, as
    /// `Sighting.onUnixTime(offset:)` moves the sightings it was heard beside; a reading
    /// already on Unix time is returned as it is.
    public func onUnixTime(offset: Double) -> TelemetryReading {
        guard clock == .elapsed else { return self }
        var moved = self
        moved.time += offset
        moved.clock = .unix
        return moved
    }
}
