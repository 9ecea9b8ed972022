/// How the commands say that reports were lost between the controller and their output.
enum LossWording {
    /// `1 report was`, `190 reports were`: the subject of "… lost between …".
    static func reports(_ count: Int) -> String {
        count == 1 ? "1 report was" : "\(count) reports were"
    }
}
