import Testing
@testable import BeaconCore

@Suite struct BluetoothAddressTests {
    static let written = "C4:5B:BE:12:34:56"
    static let value: UInt64 = 0xC45B_BE12_3456

    @Test func writtenOrderAndWireOrder() throws {
        let address = try #require(BluetoothAddress(Self.written))
        #expect(address.value == Self.value)
        #expect(address.bytes == [0xC4, 0x5B, 0xBE, 0x12, 0x34, 0x56])
        #expect(address.littleEndianBytes == [0x56, 0x34, 0x12, 0xBE, 0x5B, 0xC4])
        #expect(BluetoothAddress(littleEndianBytes: address.littleEndianBytes) == address)
        #expect(BluetoothAddress(bytes: address.bytes) == address)
        #expect(address.description == Self.written)
    }

    @Test("every spelling reads to the same 48 bits and is written upper case")
    func spellings() throws {
        let address = try #require(BluetoothAddress(value: Self.value))
        #expect(BluetoothAddress("c4:5b:be:12:34:56") == address)
        #expect(BluetoothAddress("c4:5B:bE:12:34:56") == address)
        #expect(BluetoothAddress(utf8: "c4:5b:be:12:34:56".utf8) == address)
        #expect(BluetoothAddress(utf8: Array(Self.written.utf8)[...]) == address)
        #expect(BluetoothAddress(hexDigits: "c45bbe123456".utf8) == address)
        #expect(BluetoothAddress(hexDigits: "C45BBE123456".utf8) == address)
        #expect(BluetoothAddress.parse("c4:5b:be:12:34:56") == .success(address))
        #expect(BluetoothAddress("c4:5b:be:12:34:56")?.description == Self.written)
    }

    @Test func malformedTextIsRefused() {
        let wrong = [
            "", "C4:5B:BE:12:34", "C4:5B:BE:12:34:56:78", "C4-5B-BE-12-34-56", "C4:5B:BE:12:34:5G", "C4:5B:BE:12:34:+5",
            "C45:B:BE:12:34:56", " C4:5B:BE:12:34:5", "C4:5B:BE:12:34:56 ", "C4:5B:BE:12:34:５６", "C4;5B;BE;12;34;56",
        ]
        for text in wrong {
            #expect(BluetoothAddress(text) == nil, "\(text)")
            #expect(BluetoothAddress(utf8: text.utf8) == nil, "\(text)")
        }
        for digits in ["", "c45bbe12345", "c45bbe1234567", "+45bbe123456", "c45bbe12345g", "c4:5bbe12345"] {
            #expect(BluetoothAddress(hexDigits: digits.utf8) == nil, "\(digits)")
        }
        #expect(BluetoothAddress(bytes: [1, 2, 3]) == nil)
        #expect(BluetoothAddress(littleEndianBytes: [1, 2, 3, 4, 5, 6, 7]) == nil)
        #expect(BluetoothAddress(value: 1 << 48) == nil)
    }

    @Test("what is wrong with a text, in words a person can act on", arguments: [
        ("AA-BB-CC-DD-EE-FF", "octets are separated by '-'; write them with ':' (AA:BB:CC:DD:EE:FF)"),
        ("AA:BB:CC:DD:EE", "an address has 6 octets separated by ':' (AA:BB:CC:DD:EE:FF); this has 5"),
        ("", "an address has 6 octets separated by ':' (AA:BB:CC:DD:EE:FF); this has 1"),
        ("AA:BB:CC:DD:EE:FG", "octet 6 is `FG`; each octet is two hexadecimal digits"),
        ("AA:BB:CC:DD:EE:F", "octet 6 is `F`; each octet is two hexadecimal digits"),
        ("AA:BB:CC:DD:EE:５", "octet 6 is `５`; each octet is two hexadecimal digits"),
    ])
    func problems(text: String, problem: String) {
        guard case .failure(let found) = BluetoothAddress.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(found.description == problem)
    }

    @Test("an address that may be missing: written empty, ordered first")
    func missingAddresses() throws {
        let low = try #require(BluetoothAddress("00:00:00:00:00:01"))
        let high = try #require(BluetoothAddress("C0:00:00:00:00:00"))
        #expect(BluetoothAddress.text(nil) == "")
        #expect(BluetoothAddress.text(high) == "C0:00:00:00:00:00")
        #expect(BluetoothAddress.ascending(nil, low))
        #expect(!BluetoothAddress.ascending(low, nil))
        #expect(!BluetoothAddress.ascending(nil, nil))
        #expect(BluetoothAddress.ascending(low, high) && !BluetoothAddress.ascending(high, low))
        // The order of the numbers is the order of the texts every report sorts by.
        #expect((low.description < high.description) == (low < high))
    }

    @Test func staticRandomAddresses() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<1000 {
            let address = BluetoothAddress.randomStatic(using: &generator)
            #expect(address.isStaticRandom)
            #expect(address.value >> 46 == 0b11)
        }
        #expect(BluetoothAddress.randomStatic().isStaticRandom)
        // Core v5.4 Vol 6 Part B 1.3.2.1: the random part may be neither all 0 nor all 1.
        #expect(!(try #require(BluetoothAddress("C0:00:00:00:00:00"))).isStaticRandom)
        #expect(!(try #require(BluetoothAddress("FF:FF:FF:FF:FF:FF"))).isStaticRandom)
        #expect(!(try #require(BluetoothAddress("40:00:00:00:00:01"))).isStaticRandom)
        #expect(try #require(BluetoothAddress("C0:00:00:00:00:01")).isStaticRandom)
    }

    @Test func generatorThatDrawsForbiddenValuesFirstIsRedrawn() {
        var generator = ScriptedGenerator(values: [0, .max, 0x1234])
        let address = BluetoothAddress.randomStatic(using: &generator)
        #expect(address.value == 0b11 << 46 | 0x1234)
    }
}

/// Returns the given values in turn, then zeros.
private struct ScriptedGenerator: RandomNumberGenerator {
    var values: [UInt64]
    mutating func next() -> UInt64 {
        values.isEmpty ? 0 : values.removeFirst()
    }
}
