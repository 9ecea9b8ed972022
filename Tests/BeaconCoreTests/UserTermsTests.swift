import BeaconCore
import Testing

@Suite("Settings and commands named in messages")
struct UserTermsTests {
    @Test("neutral words by default; the command line's flags and subcommands where it says so")
    func spelling() {
        #expect("\(UserSetting.minorStep)" == "the minor-step setting")
        #expect("\(UserCommand.fleetValidate)" == "the fleet validate command")
        UserTerms.$spelling.withValue(.commandLine) {
            #expect("\(UserSetting.minorStep)" == "--minor-step")
            #expect("\(UserCommand.fleetValidate)" == "`beaconctl fleet validate`")
        }
    }
}
