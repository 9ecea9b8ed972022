import Synchronization

/// Redraws the ranging table in place on a terminal: the cursor goes back up over the
/// previous table and everything below it is erased before the new one is written. Line
/// wrapping is turned off while it runs, so a table wider than the terminal is clipped
/// instead of wrapping and throwing the line count off. Only ever used on a terminal.
struct ScanLiveDisplay {
    private var linesDrawn = 0

    /// ANSI/ECMA-48 control sequences.
    private enum Control {
        static let hideCursor = "\u{1B}[?25l"
        static let showCursor = "\u{1B}[?25h"
        static let wrapOff = "\u{1B}[?7l"
        static let wrapOn = "\u{1B}[?7h"
        static let eraseBelow = "\u{1B}[J"
        static func up(_ lines: Int) -> String { "\u{1B}[\(lines)A\r" }
    }

    /// The text that replaces the previous frame with `lines`.
    mutating func frame(_ lines: [String]) -> String {
        var text = linesDrawn == 0 ? Control.hideCursor + Control.wrapOff : Control.up(linesDrawn)
        text += Control.eraseBelow
        text += lines.map { $0 + "\n" }.joined()
        linesDrawn = lines.count
        return text
    }

    /// Restores the terminal after the last frame: the table stays on screen.
    func finish() -> String {
        linesDrawn == 0 ? "" : Control.wrapOn + Control.showCursor
    }
}

/// The live display shared by the redraw task and the final frame.
final class ScanLiveDisplayBox: Sendable {
    private let display = Mutex(ScanLiveDisplay())

    func frame(_ lines: [String]) -> String {
        display.withLock { $0.frame(lines) }
    }

    func finish() -> String {
        display.withLock { $0.finish() }
    }
}
