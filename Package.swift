// swift-tools-version:6.1
//
// Layering (each layer only depends on the ones above it):
//   COpenCV, CGStreamer     system libraries, through the trimmed .pc files in pkgconfig/
//   CCardVision             the C shim that measures (C header, C++17 inside)
//   CCardRender             synthetic scenes with exact ground truth, and overlays (tests, samples, --annotate)
//   HKIDLiveness            the session that decides (state machine, observers, timers)
//   HKIDMedia               the GStreamer code that moves frames in and out
//   hkid-liveness           the command-line tool; it only wires the above together
//
// Build through the Makefile, or export PKG_CONFIG_PATH=$PWD/pkgconfig first:
// SwiftPM finds system libraries by pkg-config name only.
import PackageDescription

let package = Package(
    name: "hkid-liveness",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "HKIDLiveness", targets: ["HKIDLiveness"]),
        .library(name: "HKIDMedia", targets: ["HKIDMedia"]),
        .executable(name: "hkid-liveness", targets: ["hkid-liveness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "COpenCV", pkgConfig: "hkid-opencv4",
                       providers: [.apt(["libopencv-dev", "opencv-data"])]),
        .systemLibrary(name: "CGStreamer", pkgConfig: "hkid-gstreamer",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),

        .target(name: "CCardVision", dependencies: ["COpenCV"],
                cxxSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CCardRender", dependencies: ["COpenCV"],
                cxxSettings: [.unsafeFlags(["-O2"])]),

        .target(name: "HKIDLiveness", dependencies: [
            "CCardVision",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "HKIDMedia", dependencies: [
            "CGStreamer",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "hkid-liveness", dependencies: [
            "HKIDLiveness", "HKIDMedia", "CCardRender",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "CardVisionTests", dependencies: ["CCardVision", "CCardRender"]),
        .testTarget(name: "HKIDLivenessTests", dependencies: ["HKIDLiveness"]),
        .testTarget(name: "HKIDMediaTests", dependencies: ["HKIDMedia"]),
        .testTarget(name: "CLITests", dependencies: []),
    ],
    cxxLanguageStandard: .cxx17
)
