// swift-tools-version:6.1
//
// Layering (each layer only depends on the ones above it):
//   COpenCV, CGStreamerSystem   system libraries (includes only), through the trimmed .pc files in pkgconfig/
//   CGStreamer              C helpers around GStreamer (one header, one .c file)
//   CCardVision             the C shim that measures (C header, C++17 inside)
//   CCardRender             synthetic scenes with exact ground truth, and overlays (tests, samples, --annotate)
//   HKIDLiveness            the session that decides (state machine, observers, timers)
//   HKIDMedia               the GStreamer code that moves frames in and out
//   HKIDPipeline            where frames meet a session (replay and live drivers), for the CLI, station and bench
//   HKIDRegression          expectations of recorded sessions, accuracy against ground truth
//   HKIDSignature           signed session manifests (SPEC section 8)
//   HKIDStation             the recording-station daemon's library
//   hkid-liveness, hkid-station, hkid-samples   executables; they only wire the above together
//
// Build through the Makefile, or export PKG_CONFIG_PATH=$PWD/pkgconfig first:
// SwiftPM finds system libraries by pkg-config name only.
import PackageDescription

let package = Package(
    name: "hkid-liveness",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HKIDLiveness", targets: ["HKIDLiveness"]),
        .library(name: "HKIDMedia", targets: ["HKIDMedia"]),
        .executable(name: "hkid-liveness", targets: ["hkid-liveness"]),
        .executable(name: "hkid-station", targets: ["hkid-station"]),
        .executable(name: "hkid-hub", targets: ["hkid-hub"]),
        .executable(name: "hkid-worker", targets: ["hkid-worker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        // hkid-station and its signed bundles:
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Hummingbird's own; HKIDStation writes NIO ByteBuffers directly.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // hkid-hub and hkid-worker: the job store on PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "COpenCV", pkgConfig: "hkid-opencv4",
                       providers: [.apt(["libopencv-dev", "opencv-data"])]),
        .systemLibrary(name: "CGStreamerSystem", pkgConfig: "hkid-gstreamer",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        // The C helpers Swift needs around GStreamer (macros, the streaming-
        // thread probe, pad walks, malloc tuning), as swift-nio's CNIOLinux;
        // `import CGStreamer` brings them and GStreamer's API.
        .target(name: "CGStreamer", dependencies: ["CGStreamerSystem"]),

        // No unsafeFlags: SwiftPM refuses a version-pinned dependency whose
        // targets carry them (scripts/downstream-check.sh proves it stays so).
        // Release builds them at -O2; the debug build's -O0 costs the tests
        // little, since OpenCV does the heavy lifting (docs/benchmarks.md).
        .target(name: "CCardVision", dependencies: ["COpenCV"],
                linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CCardRender", dependencies: ["COpenCV"],
                linkerSettings: [.linkedLibrary("jpeg")]),  // photographs for harder scenes

        .target(name: "HKIDLiveness", dependencies: [
            "CCardVision",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "HKIDMedia", dependencies: [
            "CGStreamer",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Where frames meet the session: shared by the CLI, the station and the bench.
        .target(name: "HKIDPipeline", dependencies: ["HKIDLiveness", "HKIDMedia"]),
        .executableTarget(name: "hkid-liveness", dependencies: [
            "HKIDLiveness", "HKIDMedia", "HKIDPipeline", "HKIDRegression", "CCardRender", "HKIDSignature",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The recording station daemon: signing, the server library, the executable.
        .target(name: "HKIDSignature", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        ]),
        .target(name: "HKIDStation", dependencies: [
            "HKIDLiveness", "HKIDMedia", "HKIDPipeline", "HKIDSignature",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "hkid-station", dependencies: [
            "HKIDStation", "HKIDLiveness", "HKIDMedia",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "StationTests", dependencies: [
            "HKIDStation", "HKIDSignature", "HKIDMedia",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // The check service: the hub's HTTP API, the job store
        // (PostgreSQL, or SQLite embedded), the worker loop; executables wire it.
        .target(name: "HKIDHub", dependencies: [
            "HKIDLiveness", "HKIDMedia", "HKIDPipeline", "HKIDSignature",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "hkid-hub", dependencies: [
            "HKIDHub",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "hkid-worker", dependencies: [
            "HKIDHub",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "HubTests", dependencies: [
            "HKIDHub", "HKIDSignature", "HKIDLiveness",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),

        .target(name: "HKIDRegression", dependencies: []),
        .executableTarget(name: "hkid-samples", dependencies: [
            "CCardRender", "HKIDMedia", "HKIDRegression",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Yams", package: "Yams"),
        ]),

        .executableTarget(name: "hkid-bench", dependencies: ["CCardVision", "CCardRender", "HKIDLiveness", "HKIDMedia", "HKIDPipeline", "HKIDRegression", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log"),
            "HKIDHub", .product(name: "PostgresNIO", package: "postgres-nio")]),

        .testTarget(name: "CardVisionTests", dependencies: ["CCardVision", "CCardRender", "HKIDRegression", "HKIDLiveness"]),
        .testTarget(name: "HKIDLivenessTests", dependencies: ["HKIDLiveness"]),
        .testTarget(name: "HKIDMediaTests", dependencies: ["HKIDMedia"]),
        .testTarget(name: "HKIDPipelineTests", dependencies: ["HKIDPipeline", "HKIDLiveness", "HKIDMedia"]),
        .testTarget(name: "CLITests", dependencies: []),
    ],
    cxxLanguageStandard: .cxx17
)
