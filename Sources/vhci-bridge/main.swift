// vhci-bridge: makes one controller of an H4-over-TCP server (RootCanal) a kernel controller.
//
// It opens /dev/vhci (module hci_vhci), where the opener plays the controller: the kernel
// registers a new hciN and sends it HCI commands. Each read of /dev/vhci is one whole packet
// (H4 indicator first) and each write must be one whole packet; TCP is a byte stream, so
// the way back is cut into packets with H4StreamParser. Two blocking threads, one per
// direction: the kernel times out each set-up command after 2 s, and under software
// emulation a bridge must add as little latency as it can.
//
// Usage: vhci-bridge HOST:PORT
// Prints the new controller's name (`hci0`) on standard output once the kernel registered
// it, then forwards until either side closes; hciN disappears when this process ends.
import Glibc
import HCITransports

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let endpoint = arguments.first, !endpoint.hasPrefix("-") else {
    fail("usage: vhci-bridge HOST:PORT   (an H4-over-TCP controller, e.g. RootCanal's HCI port)", status: 2)
}

// A dead peer must end this process with a message, not with SIGPIPE.
signal(SIGPIPE, SIG_IGN)

// The controller exists on RootCanal's air before the kernel sends it its first command.
let server = connectTCP(endpoint)
let vhci = openVHCI()
let name = "hci\(createController(vhci))"
_ = writeAll(STDOUT_FILENO, Array("\(name)\n".utf8))

do {
    try POSIXThread.detach { [vhci, server, name, endpoint] in
        forwardKernelPackets(vhci: vhci, server: server, name: name, endpoint: endpoint)
    }
} catch {
    fail("cannot start the forwarding thread: \(error)")
}
forwardControllerPackets(vhci: vhci, server: server, name: name, endpoint: endpoint)
