import BeaconCore
import Testing

@Suite("Numbers as text")
struct NumberTextTests {
    @Test("whole values without a fraction, others as Swift writes them, huge ones never trapping")
    func plain() {
        #expect(NumberText.plain(24) == "24")
        #expect(NumberText.plain(-3) == "-3")
        #expect(NumberText.plain(3.5) == "3.5")
        #expect(NumberText.plain(0.1) == "0.1")
        #expect(NumberText.plain(999_999_999_999_999) == "999999999999999")
        #expect(NumberText.plain(1e20) == "1e+20")
        #expect(NumberText.plain(-1e300) == "-1e+300")
        #expect(NumberText.plain(.infinity) == "inf")
        #expect(NumberText.plain(.nan) == "nan")
    }

    @Test("a count and its noun, plural for every count but one")
    func count() {
        #expect(NumberText.count(0, "beacon") == "0 beacons")
        #expect(NumberText.count(1, "beacon") == "1 beacon")
        #expect(NumberText.count(2, "restart attempt") == "2 restart attempts")
    }
}
