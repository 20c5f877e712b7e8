#!/usr/bin/env python3
"""Renders a set of genuine and attack sessions to set the liveness thresholds on.

    scripts/liveness-renders.py [--out DIR] [--genuine N] [--attacks N] [--seed S] [--person SHARE]
                                [-j J] [--only NAME,...]

The thresholds of docs/liveness.md are placed on these renders, never on the
evaluation sets (../shared/eval-dev, ../shared/eval-real), which only measure.
Every session is drawn from a seeded generator, so the same seed gives the
same set; another seed gives a set made the same way but not the same
sessions (a check on the first).

Genuine sessions: either card type, 640x480 or 960x540 at 15 or 20 fps (the
renderer draws a frame in about a quarter of a second on a loaded 2-core host,
so a set of 80 is an hour at 30 fps and 720p), H.264 or MPEG-4, full
or limited range, dim to bright light, noise, focus blur, the laminate's
specular highlight or the phone's torch, a cast shadow, a photograph behind
the card, and a start that is held near (cut by the frame), far, or right.
A third of them pass afterwards through a camera that lifts blacks (a tone
curve with a raised floor, or a washed-out contrast with a soft blur).

With --person SHARE, that share of the sessions has a person sitting behind
the card (hkid-samples' `person`: head 0.14-0.28 of the view, a lanyard badge
on two in five, a light wall on half), drawn from a generator seeded by the
session's own seed, so the rest of the set is the same as without.

Attacks: colour and black-and-white paper copies, and screen replays that
fill the view (no bezel) or show a bezel of 2-15 % of the view, under the
same cameras and starts.

Writes DIR/NAME.yaml (the scenario), DIR/NAME.mp4 and DIR/NAME.gt.json (the
fields scripts/liveness-auc.py reads: card_type, overtime, expected.retCode),
then score with

    python3 scripts/liveness-auc.py --set DIR

Needs hkid-samples built (`swift build -c release --product hkid-samples`),
Debian's python3-opencv and python3-numpy, and gst-launch-1.0 with x264enc.
"""
import argparse
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "samples", "photos")
BACKGROUNDS = ["brick.jpg", "chelsea.jpg", "coffee.jpg", "grass.jpg", "gravel.jpg", "rocket.jpg", None, None]
SIZES = [(640, 480), (640, 480), (640, 480), (960, 540), (960, 540)]


def seat_person(scenario, share):
    """A person behind the card in share of the sessions (see the top of this file)."""
    who = random.Random(scenario["seed"])
    if who.random() >= share:
        return
    scenario["person"] = {"size": round(who.uniform(0.14, 0.28), 3), "x": round(who.uniform(0.35, 0.65), 3),
                          "badge": who.random() < 0.4}
    if who.random() < 0.5:
        scenario.setdefault("photos", {})["background_lift"] = round(who.uniform(0.3, 0.7), 2)
    scenario["description"] += ", a person behind the card"


def session(rng, material):
    """One scenario (a dict written as YAML) and the camera it passes through."""
    card = rng.choice(["2003", "2018"])
    axis = "pitch" if card == "2003" else "yaw"
    w, h = rng.choice(SIZES)
    start = rng.choice(["right", "right", "near", "far"])
    distance = rng.uniform(200, 235)
    pose = {"x": round(rng.uniform(0.45, 0.55), 3), "y": round(rng.uniform(0.46, 0.54), 3),
            "distance": round(distance, 1), "roll": round(rng.uniform(-4, 4), 1)}
    moves = []
    if start == "near":  # held close first, cut by the frame, then backed off
        moves += [{"hold": round(rng.uniform(1.2, 2.0), 2)},
                  {"to": {"distance": round(distance, 1), "x": pose["x"]}, "over": 1.2}, {"hold": 0.6}]
        pose = dict(pose, distance=round(rng.uniform(95, 125), 1), x=round(rng.choice([0.3, 0.5, 0.7]), 2))
    elif start == "far":
        moves += [{"hold": round(rng.uniform(1.2, 2.0), 2)}, {"to": {"distance": round(distance, 1)}, "over": 1.2},
                  {"hold": 0.6}]
        pose = dict(pose, distance=round(rng.uniform(360, 420), 1))
    else:
        moves += [{"hold": round(rng.uniform(1.0, 1.5), 2)}]
    turn = rng.choice([28, 32])
    moves += [{"to": {axis: turn}, "over": 1.1}, {"hold": 0.5}, {"to": {axis: 0}, "over": 1.0}, {"hold": 0.8},
              {"to": {axis: -turn}, "over": 1.1}, {"hold": 1.2}]
    effects = {"noise": round(rng.uniform(1.0, 5.0), 1), "brightness": round(rng.uniform(0.5, 1.2), 2),
               "blur": round(rng.choice([0, 0, 0.6, 1.0]), 1), "specular": round(rng.uniform(0, 0.7), 2)}
    if material == "genuine" and rng.random() < 0.2:
        effects["torch"] = round(rng.uniform(0.4, 0.9), 2)
    if rng.random() < 0.2:
        effects["shadow"] = {"strength": round(rng.uniform(0.2, 0.5), 2), "x": 0.5, "y": 0.5,
                             "angle": rng.choice([0, 45, 135, 200]), "soft": 30}
    if material == "screen":
        effects["screen_bezel"] = rng.choice([0, 0, 0.02, 0.05, 0.1, 0.15])
    scenario = {"description": f"{material} {card}, {w}x{h}, starting {start}", "card": card, "size": [w, h],
                "fps": rng.choice([15, 20]), "seed": rng.randrange(1, 1 << 30), "material": material,
                "pose": pose, "moves": moves, "effects": effects,
                "hand": {"drift_px": round(rng.uniform(2, 8), 1)},
                "encode": {"codec": rng.choice(["h264", "h264", "mpeg4"]),
                           "range": rng.choice(["full", "limited"])},
                "expect": {"retCode": 5 if material != "genuine" else 0,
                           "statuses": ["BEGIN"] if material != "genuine" else
                           ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "COMPLETE"]}}
    background = rng.choice(BACKGROUNDS)
    if background:
        scenario["photos"] = {"background": background}
    camera = rng.choice(["as-is", "as-is", "lifted", "washed"])
    return scenario, camera


def tone(camera):
    x = np.arange(256) / 255.0
    if camera == "lifted":  # a camera that lifts blacks: a floor of about 30 levels and a soft toe
        return np.clip(255 * (0.12 + 0.88 * x ** 0.85), 0, 255).astype(np.uint8)
    return np.clip(128 + (np.arange(256) - 128) * 0.6 + 12, 0, 255).astype(np.uint8)  # washed out


def through_camera(video, camera):
    """Re-encodes video through a camera's tone curve (as scripts/perturb-dev.py does)."""
    capture = cv2.VideoCapture(video)
    fps = capture.get(cv2.CAP_PROP_FPS) or 30
    w, h = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    partial = video + ".cam.mp4"
    encoder = subprocess.Popen(
        ["gst-launch-1.0", "-q", "fdsrc", "!", "rawvideoparse", f"width={w}", f"height={h}", "format=bgr",
         f"framerate={int(round(fps * 1000))}/1000", "!", "videoconvert", "!", "video/x-raw,format=I420", "!",
         "x264enc", "pass=quant", "quantizer=26", "speed-preset=faster", "key-int-max=60", "!", "mp4mux", "!",
         "filesink", f"location={partial}"], stdin=subprocess.PIPE)
    lut = tone(camera)
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frame = cv2.LUT(frame, lut)
        if camera == "washed":
            frame = cv2.GaussianBlur(frame, (0, 0), 1.0)
        encoder.stdin.write(np.ascontiguousarray(frame).tobytes())
    encoder.stdin.close()
    if encoder.wait() != 0:
        raise SystemExit(f"liveness-renders: {video}: re-encoding through the {camera} camera failed")
    os.replace(partial, video)


def render(samples_bin, out, name, scenario, camera):
    yaml_path = os.path.join(out, name + ".yaml")
    if "background" in scenario.get("photos", {}):
        rel = os.path.relpath(os.path.join(PHOTOS, scenario["photos"]["background"]), out)
        scenario = dict(scenario, photos=dict(scenario["photos"], background=rel))
    with open(yaml_path, "w") as f:
        json.dump(scenario, f, indent=1)  # JSON is YAML: hkid-samples reads it
    run = subprocess.run([samples_bin, yaml_path, "--out", out], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"liveness-renders: {name}: {run.stderr.strip()}")
    video = os.path.join(out, name + ".mp4")
    if camera != "as-is":
        through_camera(video, camera)
    truth = {"card_type": scenario["card"], "overtime": 30, "camera_curve": camera,
             "expected": {"retCode": scenario["expect"]["retCode"]}, "description": scenario["description"]}
    with open(os.path.join(out, name + ".gt.json"), "w") as f:
        json.dump(truth, f)
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", ".build", "liveness-renders"))
    ap.add_argument("--genuine", type=int, default=48)
    ap.add_argument("--attacks", type=int, default=48)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", ".build", "release", "hkid-samples"))
    ap.add_argument("--person", type=float, default=0.0, metavar="SHARE",
                    help="share of sessions with a person behind the card, 0...1")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--only", help="comma-separated names: render only these of the set the seed draws")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"liveness-renders: {a.bin} is not built (swift build -c release --product hkid-samples)")
    os.makedirs(a.out, exist_ok=True)
    if not 0 <= a.person <= 1:
        sys.exit(f"liveness-renders: --person must be 0...1, not {a.person}")
    rng = random.Random(a.seed)
    jobs = []
    for i in range(a.genuine):
        jobs.append((f"genuine_{a.seed}_{i:03d}",) + session(rng, "genuine"))
    kinds = ["copy-colour", "copy-grey", "screen", "screen"]
    for i in range(a.attacks):
        jobs.append((f"attack_{a.seed}_{i:03d}",) + session(rng, kinds[i % len(kinds)]))
    for _, scenario, _ in jobs:
        seat_person(scenario, a.person)
    # Genuine and attack sessions alternate, so a set cut short is still both.
    jobs = [j for pair in zip(jobs[:a.genuine], jobs[a.genuine:]) for j in pair] + \
        jobs[min(a.genuine, a.attacks):a.genuine] + jobs[a.genuine + min(a.genuine, a.attacks):]
    if a.only:
        jobs = [j for j in jobs if j[0] in a.only.split(",")]
    with ThreadPoolExecutor(a.j) as pool:
        for name in pool.map(lambda j: render(a.bin, a.out, *j), jobs):
            print(name, flush=True)


if __name__ == "__main__":
    main()
