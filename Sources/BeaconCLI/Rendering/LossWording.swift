/// How the commands say that reports were lost between the controller and their output.
enum LossWording {
    /// `1 report was`, `190 reports were`: the subject of "… lost between …".
    static func reports(_ count: Int) -> String {
        count == 1 ? "1 report was" : "\(count) reports were"
    }

    /// `monitor`'s warning at the end of a live run that lost `count` reports.
    static func monitorLost(_ count: Int) -> String {
        "\(reports(count)) lost between the controller and monitoring (this host could not keep up): "
            + "an exit may have come from lost reports rather than silence"
    }
}
