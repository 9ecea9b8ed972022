// A test of the use cases that imports this kit has the HCI kit's scripted controller,
// in-memory transport and event waits too, as it had before the two were split.
@_exported import HCITestKit
