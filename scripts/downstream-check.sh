#!/usr/bin/env bash
# Proves that another package can depend on this one by version (issue 14):
# SwiftPM refuses a version-pinned dependency whose targets carry unsafe
# flags, so this is the check that Package.swift stays usable as a library.
#
# Clones the repository's committed HEAD to a temporary folder, tags the
# clone 1.0.0, writes a tiny package that declares
#   .package(url: "file://<clone>", from: "1.0.0")
# and uses the HKIDLiveness and HKIDMedia products, builds it, and runs a
# LivenessSession over a bundled sample, printing its events as JSON lines.
# Fails unless the flow reaches COMPLETE with result 0.
#
# Like any consumer, the downstream build needs this package's trimmed .pc
# files on PKG_CONFIG_PATH (SwiftPM finds system libraries by pkg-config name
# only): here the clone's pkgconfig/ folder.
#
# Usage: scripts/downstream-check.sh [SAMPLE.mp4]   (make downstream-check)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
sample=$(realpath "${1:-$repo/samples/genuine-2018.mp4}")
work=$(mktemp -d "${TMPDIR:-/tmp}/hkid-downstream.XXXXXX")
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-checkout "$repo" "$work/hkid-liveness"
git -C "$work/hkid-liveness" checkout --quiet --detach "$(git -C "$repo" rev-parse HEAD)"
git -C "$work/hkid-liveness" tag 1.0.0
export PKG_CONFIG_PATH="$work/hkid-liveness/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

mkdir -p "$work/consumer/Sources/consumer"
cat > "$work/consumer/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [
        .package(url: "file://$work/hkid-liveness", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "HKIDLiveness", package: "hkid-liveness"),
            .product(name: "HKIDMedia", package: "hkid-liveness"),
        ]),
    ]
)
SWIFT
cat > "$work/consumer/Sources/consumer/main.swift" <<'SWIFT'
import HKIDLiveness
import HKIDMedia

// A session over every frame of a recording, in order, as an integrator
// would write it with the two public products.
let session = LivenessSession(configuration: LivenessConfiguration())
let encoder = EventLineEncoder()
for event in session.startDetect() { print(encoder.line(for: event)) }
let source = try FrameSource(.replay, input: CommandLine.arguments[1])
_ = try source.run { frame in
    guard frame.format == .i420 else { fatalError("the replay pipeline delivers I420, got \(frame.format)") }
    let view = FrameView(format: .i420, width: frame.width, height: frame.height,
                         planes: frame.planes, strides: frame.strides, pts: frame.pts)
    for event in try session.addFrame(view).events { print(encoder.line(for: event)) }
}
print(encoder.endLine(counters: session.counters, seconds: 0))
session.close()
SWIFT

cd "$work/consumer"
# A debug build, as `swift build` makes by default: it compiles faster than
# release (2m22 against 2m44 for the whole check with both cores busy), and
# the shim's -O0 costs under a second on one sample.
swift build --product consumer 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]' || true
test -x .build/debug/consumer || { echo "downstream-check: the consumer did not build" >&2; exit 1; }
.build/debug/consumer "$sample" | tee events.jsonl
statuses=$(grep -o '"status":"[A-Z]*"' events.jsonl | cut -d'"' -f4 | tr '\n' ' ')
if [ "$statuses" = "BEGIN ORTH RESET LEFTDOWN COMPLETE " ] && grep -q '"retCode":0' events.jsonl; then
  echo "downstream-check: a package depending on hkid-liveness from: \"1.0.0\" ran the whole flow on $(basename "$sample")"
else
  echo "downstream-check: expected BEGIN ORTH RESET LEFTDOWN COMPLETE and result 0, got: $statuses" >&2
  exit 1
fi
