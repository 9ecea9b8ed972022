import BenchmarkSupport

/// Runs this executable again as `--child MODE FILE` and reads its one-line answer. A
/// fresh process per measurement is what makes its peak memory that measurement's alone.
func runChild(_ mode: ChildMode, file: String) -> Measurement? {
    ChildProcessMeasurement.run(["--child", mode.rawValue, file]).flatMap(Measurement.init(line:))
}
