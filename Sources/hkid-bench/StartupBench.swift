// StartupBench.swift — `hkid-bench startup`: how long `hkid-liveness
// --version` takes (dynamic linking and Swift runtime start-up, no
// GStreamer), and how many shared libraries the binary pulls in.
import ArgumentParser
import Foundation

struct StartupBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract: "Median wall time of `hkid-liveness --version`, and its shared-library count.")

    @Option(help: "Runs.") var runs: Int = 30
    @Option(help: "The hkid-liveness binary.") var binary: String = Bench.defaultBinary

    func run() throws {
        Bench.quietLogging
        print(Bench.machineLine)
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw BenchError("\(binary) is not built") }
        _ = try Bench.runChild([binary, "--version"])  // warm the page cache
        var times: [Double] = []
        for _ in 0..<runs {
            let run = try Bench.runChild([binary, "--version"])
            guard run.status == 0 else { throw BenchError("--version exit \(run.status)") }
            times.append(run.seconds * 1000)
        }
        print("\(binary) --version, \(runs) runs: median \(Bench.fmt(Bench.median(times), 1)) ms, "
              + "p90 \(Bench.fmt(Bench.percentile(times, 0.9), 1)) ms, min \(Bench.fmt(times.min() ?? .nan, 1)) ms (target well under 50 ms)")
        print("shared libraries (ldd | wc -l): \(lddCount())")
    }

    private func lddCount() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [binary]
        let pipe = Pipe()
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return "?" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return "\(String(decoding: data, as: UTF8.self).split(separator: "\n").count)"
    }
}
