import Testing
@testable import HCILinux
