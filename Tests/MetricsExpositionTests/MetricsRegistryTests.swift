import Testing

@testable import MetricsExposition

@Suite("The registry's text exposition (format 0.0.4)")
struct MetricsRegistryTests {
    @Test("families come in the order of their names, each with its HELP and TYPE lines before its series")
    func ordering() {
        let registry = MetricsRegistry()
        registry.register("beaconctl_watch_sightings_total", help: "Sightings read.", type: .counter) { 12 }
        registry.register("beaconctl_build_info", help: "The build.", type: .gauge) {
            [MetricSample(1, labels: [MetricLabel("version", "1.2.3")])]
        }
        registry.register("beaconctl_watch_beacons", help: "Beacons by state.", type: .gauge) {
            [MetricSample(3, labels: [MetricLabel("state", "ok")]), MetricSample(0, labels: [MetricLabel("state", "missing")])]
        }
        #expect(registry.exposition() == """
            # HELP beaconctl_build_info The build.
            # TYPE beaconctl_build_info gauge
            beaconctl_build_info{version="1.2.3"} 1
            # HELP beaconctl_watch_beacons Beacons by state.
            # TYPE beaconctl_watch_beacons gauge
            beaconctl_watch_beacons{state="ok"} 3
            beaconctl_watch_beacons{state="missing"} 0
            # HELP beaconctl_watch_sightings_total Sightings read.
            # TYPE beaconctl_watch_sightings_total counter
            beaconctl_watch_sightings_total 12

            """)
    }

    @Test("label values escape backslash, double quote and line feed; HELP escapes backslash and line feed only")
    func escaping() {
        let registry = MetricsRegistry()
        registry.register("x_total", help: "a \\ back\"slash\nand a line", type: .counter) {
            [MetricSample(1, labels: [MetricLabel("input", "C:\\pipe \"a\"\nb"), MetricLabel("why", "é ✓")])]
        }
        #expect(registry.exposition() == """
            # HELP x_total a \\\\ back"slash\\nand a line
            # TYPE x_total counter
            x_total{input="C:\\\\pipe \\"a\\"\\nb",why="é ✓"} 1

            """)
    }

    @Test("values as Prometheus parses them: whole numbers bare, fractions, NaN and infinities by their names")
    func values() {
        #expect(MetricsRegistry.formatted(0) == "0")
        #expect(MetricsRegistry.formatted(1_200_000) == "1200000")
        #expect(MetricsRegistry.formatted(-3) == "-3")
        #expect(MetricsRegistry.formatted(0.5) == "0.5")
        #expect(MetricsRegistry.formatted(1_764_150_000.25) == "1764150000.25")
        #expect(MetricsRegistry.formatted(.nan) == "NaN")
        #expect(MetricsRegistry.formatted(.infinity) == "+Inf")
        #expect(MetricsRegistry.formatted(-.infinity) == "-Inf")
        #expect(MetricsRegistry.formatted(1e300) == "1e+300")
    }

    @Test("a family registered again replaces the first; a family whose collector gives nothing keeps its HELP and TYPE")
    func replacing() {
        let registry = MetricsRegistry()
        registry.register("a", help: "first", type: .gauge) { 1 }
        registry.register("a", help: "second", type: .gauge) { 2 }
        registry.register("b", help: "none yet", type: .gauge) { [] }
        #expect(registry.exposition() == "# HELP a second\n# TYPE a gauge\na 2\n# HELP b none yet\n# TYPE b gauge\n")
    }

    @Test("metric and label names as the format allows them")
    func names() {
        #expect(MetricsRegistry.isMetricName("beaconctl_watch_beacons"))
        #expect(MetricsRegistry.isMetricName("job:rate5m"))
        #expect(!MetricsRegistry.isMetricName("9lives"))
        #expect(!MetricsRegistry.isMetricName("a-b"))
        #expect(!MetricsRegistry.isMetricName(""))
        #expect(MetricsRegistry.isLabelName("state"))
        #expect(!MetricsRegistry.isLabelName("__name__"))
        #expect(!MetricsRegistry.isLabelName("a:b"))
    }
}

@Suite("--metrics [ADDRESS:]PORT")
struct MetricsListenAddressTests {
    @Test("a port alone is loopback; IPv4 and bracketed IPv6 addresses; port 0")
    func accepted() throws {
        #expect(try MetricsListenAddress(parsing: "9464") == MetricsListenAddress(host: "127.0.0.1", family: .ipv4, port: 9464))
        #expect(try MetricsListenAddress(parsing: "127.0.0.1:0") == MetricsListenAddress(host: "127.0.0.1", family: .ipv4, port: 0))
        #expect(try MetricsListenAddress(parsing: "0.0.0.0:9464").description == "0.0.0.0:9464")
        #expect(try MetricsListenAddress(parsing: "[::1]:9464") == MetricsListenAddress(host: "::1", family: .ipv6, port: 9464))
        #expect(try MetricsListenAddress(parsing: "[::]:65535").description == "[::]:65535")
        #expect(try MetricsListenAddress(parsing: "[::1]:9464").url == "http://[::1]:9464/metrics")
    }

    @Test(
        "anything else is refused, naming the value",
        arguments: ["", "abc", "65536", "-1", "+80", "9464 ", "localhost:9464", "::1:9464", "[::1]9464", "[::1]:", "1.2.3.4:", ":9464",
                    "1.2.3:9464", "[127.0.0.1]:80", "99999999999999999999"])
    func refused(_ value: String) {
        #expect {
            try MetricsListenAddress(parsing: value)
        } throws: { error in
            (error as? MetricsAddressError)?.description.hasPrefix("\(value) is not [ADDRESS:]PORT: ") == true
        }
    }
}
