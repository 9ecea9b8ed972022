import ArgumentParser
import BeaconFleet

/// `beaconctl controllers`: what controllers there are, and what one of them can do.
struct ControllersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controllers",
        abstract: "List the kernel's Bluetooth controllers, or show what one controller can do.",
        discussion: """
            Without --hci: the controllers the kernel knows (hci0, hci1, …), with address and state. \
            With --hci SPEC: opens that controller and shows its Bluetooth version, manufacturer, address, \
            LE features, whether it has extended advertising (and how many advertising sets), and its \
            advertising TX power. Exclusive transports are reset first; the kernel's shared hci0 never is. \
            $BEACONCTL_HCI is not consulted here: without --hci the command lists.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup(title: "Controller") var controller: HCIOptions

    @Option(help: "Output: text (for people) or json (for programs).")
    var format: OutputFormat = .text

    func run() async throws {
        try UnexpectedErrorProbe.reached("controllers")
        guard let spec = try controller.namedSpec() else {
            let listing: KernelControllerListing
            do {
                listing = try ControllerInventory.kernelControllers(on: controller.platform)
            } catch {
                throw CommandFailure(.controller, error.advisedMessage)
            }
            try ControllersOutput.printListing(listing, format: format, style: globals.style())
            return
        }
        let capture = try controller.openCapture()
        defer { capture?.close() }
        let report: ControllerReport
        do {
            report = try await ControllerInventory.inspect(controller.connection(spec, capture: capture), logger: globals.makeLogger())
        } catch {
            throw CommandFailure(.controller, error.advisedMessage)
        }
        switch format {
        case .text: ControllersOutput.printReport(report, style: globals.style())
        case .json: try ControllersOutput.printJSON(ControllerReportJSON(report))
        }
    }
}
