#!/usr/bin/env python3
"""Copies of the development set as other cameras and encoders would deliver it.

    scripts/perturb-dev.py KIND [KIND...] [--set DIR] [--out DIR] [--cases NAME,...]

The development set (../shared/eval-dev) is one renderer's idea of a phone
video. Scoring the CLI on the same videos after a change a real camera or
stream makes (a low bitrate, a darker noisier sensor, a flat tone curve, a
smaller frame) shows which results hold by margin and which by luck, without
tuning anything to the set: the ground truth moves with the frames, so
`score.py` scores the copies as it scores the set.

Kinds (each decodes every frame with OpenCV, changes it, and encodes it again
with x264 through gst-launch-1.0 at a fixed quantiser):

  lowbitrate   nothing changed; x264 at QP 36 (blocks, smeared edges)
  dark-noisy   a darkening tone curve (levels ** 1.6) and sensor noise of
               sigma 5, QP 28
  flat         contrast 0.55 about mid-grey plus 10 (a washed-out webcam or a
               veiling glare over the lens) and a 1.2 px blur, QP 28
  bright       a brightening tone curve (levels ** 0.6), QP 28
  small        0.6 of the width and height (corners and camera scaled), QP 26

Writes OUT/KIND/NAME.mp4 and NAME.gt.json (default OUT: .build/perturbed),
then score each copy with the set's own scorer, e.g.

    python3 ../shared/eval-dev/score.py --videos .build/perturbed/lowbitrate --no-baseline \\
        --cmd '.build/release/hkid-liveness replay {video} --card {card_type} --overtime {overtime} --json --trace'

Needs Debian's python3-opencv and python3-numpy (scripts/install-deps.sh eval)
and GStreamer's x264enc (gstreamer1.0-plugins-ugly).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

import cv2
import numpy as np

KINDS = {
    # kind: (quantiser, scale)
    "lowbitrate": (36, 1.0),
    "dark-noisy": (28, 1.0),
    "flat": (28, 1.0),
    "bright": (28, 1.0),
    "small": (26, 0.6),
}


def tone(power):
    return np.clip(255 * (np.arange(256) / 255.0) ** power, 0, 255).astype(np.uint8)


def changer(kind, rng):
    dark, bright = tone(1.6), tone(0.6)
    flat = np.clip(128 + (np.arange(256) - 128) * 0.55 + 10, 0, 255).astype(np.uint8)

    def change(frame, size):
        if kind == "dark-noisy":
            noisy = cv2.LUT(frame, dark).astype(np.float32) + rng.normal(0, 5, frame.shape).astype(np.float32)
            return np.clip(noisy, 0, 255).astype(np.uint8)
        if kind == "flat":
            return cv2.GaussianBlur(cv2.LUT(frame, flat), (0, 0), 1.2)
        if kind == "bright":
            return cv2.LUT(frame, bright)
        if kind == "small":
            return cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        return frame

    return change


def perturb(kind, name, set_dir, out_dir, rng):
    quantiser, scale = KINDS[kind]
    truth = json.load(open(os.path.join(set_dir, name + ".gt.json")))
    video = truth["video"]
    width, height, fps = video["width"], video["height"], float(video["fps"])
    if scale != 1.0:
        out_w, out_h = int(round(width * scale)) // 2 * 2, int(round(height * scale)) // 2 * 2
    else:
        out_w, out_h = width, height
    target = os.path.join(out_dir, name + ".mp4")
    partial = target + ".part"
    encoder = subprocess.Popen(
        ["gst-launch-1.0", "-q", "fdsrc", "!", "rawvideoparse", f"width={out_w}", f"height={out_h}", "format=bgr",
         f"framerate={int(round(fps * 1000))}/1000", "!", "videoconvert", "!", "video/x-raw,format=I420", "!",
         "x264enc", "pass=quant", f"quantizer={quantiser}", "speed-preset=faster", "key-int-max=60", "!", "mp4mux",
         "!", "filesink", f"location={partial}"],
        stdin=subprocess.PIPE)
    capture = cv2.VideoCapture(os.path.join(set_dir, video["file"]))
    change = changer(kind, rng)
    frames = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        encoder.stdin.write(np.ascontiguousarray(change(frame, (out_w, out_h))).tobytes())
        frames += 1
    encoder.stdin.close()
    if encoder.wait() != 0 or frames == 0:
        raise SystemExit(f"perturb-dev: {name} ({kind}): encoding failed after {frames} frames")
    os.replace(partial, target)  # never a half-written video under the final name
    if scale != 1.0:
        sx, sy = out_w / width, out_h / height
        for f in truth["frames"]:
            if f.get("corners"):
                f["corners"] = [[(x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5] for x, y in f["corners"]]
        video["width"], video["height"] = out_w, out_h
        camera = truth["camera"]
        camera["fx"] *= sx
        camera["fy"] *= sy
        camera["cx"], camera["cy"] = (out_w - 1) / 2, (out_h - 1) / 2
    video["file"] = name + ".mp4"
    truth_path = os.path.join(out_dir, name + ".gt.json")
    with open(truth_path + ".part", "w") as f:
        json.dump(truth, f)
    os.replace(truth_path + ".part", truth_path)
    return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kinds", nargs="+", choices=sorted(KINDS))
    ap.add_argument("--set", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "eval-dev"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", ".build", "perturbed"))
    ap.add_argument("--cases", help="comma-separated names (default: every video of the set)")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.set, "scenarios.json")):
        sys.exit(f"perturb-dev: {a.set}: no development set there (scenarios.json missing)")
    names = a.cases.split(",") if a.cases else sorted(
        os.path.basename(p)[:-len(".gt.json")] for p in glob.glob(os.path.join(a.set, "*.gt.json")))
    for kind in a.kinds:
        out_dir = os.path.join(a.out, kind)
        os.makedirs(out_dir, exist_ok=True)
        shutil.copyfile(os.path.join(a.set, "scenarios.json"), os.path.join(out_dir, "scenarios.json"))  # not its mode
        rng = np.random.default_rng(7)  # the same noise every run
        for name in names:
            frames = perturb(kind, name, a.set, out_dir, rng)
            print(f"{kind} {name}: {frames} frames", flush=True)


if __name__ == "__main__":
    main()
