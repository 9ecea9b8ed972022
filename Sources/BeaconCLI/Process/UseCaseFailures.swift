import BeaconFleet

extension CommandFailure {
    /// A failed scan, with the command line's exit statuses.
    init(_ failure: ScanFailure) {
        switch failure {
        case .publishing(let error): self.init(error)
        case .recording(let error): self.init(.usageOrInput, error.description)
        case .controller(let error): self.init(.controller, "\(error)")
        case .undelivered(let broker): self.init(.controller, "not every sighting reached \(broker) (see above)")
        }
    }
}

extension CommandFailure {
    /// A failed monitoring run, with the command line's exit statuses.
    init(_ failure: MonitorFailure) {
        switch failure {
        case .publishing(let error): self.init(error)
        case .recording(let error): self.init(.usageOrInput, error.description)
        case .undelivered(let broker): self.init(.controller, "not every event reached \(broker) (see above)")
        }
    }
}

extension CommandFailure {
    /// A failed live calibration of `beaconID`, with the command line's exit statuses.
    init(_ error: LiveCalibrationError, beaconID: String) {
        switch error {
        case .controller(let failure):
            self.init(.controller, ExitStatus.message(for: failure))
        case .pacingEnded(let index, let count, let distance):
            self.init(.findings, "standard input ended before spot \(index + 1) of \(count) (\(CalibrationProgressText.spot(distance, beaconID))); no profile was written")
        }
    }
}
