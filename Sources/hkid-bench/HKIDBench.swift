// HKIDBench.swift — the benchmark command group. One file per subcommand.
import ArgumentParser

@main
struct HKIDBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-bench",
        abstract: "Benchmarks for hkid-liveness.",
        subcommands: [VisionBench.self, SceneBench.self, ReplayBench.self, LatencyBench.self, StartupBench.self, MemoryBench.self, SoakBench.self, HubBench.self])
}
