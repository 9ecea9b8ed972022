import ArgumentParser
import FleetManifest

/// When to colour output: `auto` colours only a terminal and never when `NO_COLOR` is set
/// (https://no-color.org: any non-empty value disables colour).
public enum ColorChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto, always, never
}

/// ANSI styling that collapses to plain text when colour is off.
struct Style: Sendable {
    let enabled: Bool

    init(choice: ColorChoice, isTerminal: Bool, environment: [String: String]) {
        switch choice {
        case .always: enabled = true
        case .never: enabled = false
        case .auto: enabled = isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
        }
    }

    func error(_ text: String) -> String { wrap(text, "1;31") }
    func warning(_ text: String) -> String { wrap(text, "1;33") }
    func note(_ text: String) -> String { wrap(text, "1;36") }
    func success(_ text: String) -> String { wrap(text, "1;32") }
    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

extension Style {
    /// A manifest diagnostic with its severity words coloured (`error` red, `warning`
    /// yellow, `note` as notes are): the one way every command prints them.
    func rendered(_ diagnostic: Diagnostic) -> String {
        diagnostic.rendered { severity in
            switch severity {
            case .error: return error("error")
            case .warning: return warning("warning")
            case .note: return note("note")
            }
        }
    }
}
