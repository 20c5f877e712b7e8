#!/usr/bin/env python3
"""Where each side of the tracked card sits against ground truth, per video.

    scripts/eval-dev-sides.py BIN [NAME ...]     (default: every non-screen video)
    EVAL_DEV=DIR scripts/eval-dev-sides.py BIN   another copy of the set

Replays development videos (../shared/eval-dev) and prints, per video, each
side's offset from the true side (pixels along its outward normal, + = outward;
order top, right, bottom, left) as the median and the 90th percentile of its
size over the frames where the card is fully inside, beside the yaw/pitch
error. A pose error of several degrees with three sides within a tenth of a
pixel points at the fourth: which side sits on a wrong edge, and how far.
"""
import json
import os
import subprocess
import sys

import numpy as np

set_dir = os.environ.get("EVAL_DEV", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "eval-dev"))


def side_offsets(truth, found):
    """Offsets of found's sides from truth's along truth's outward normals."""
    t, d = np.asarray(truth, float), np.asarray(found, float) - np.asarray(truth, float)
    centre, out = t.mean(0), []
    for k in range(4):
        a, b = t[k], t[(k + 1) % 4]
        u = (b - a) / np.linalg.norm(b - a)
        n = np.array([u[1], -u[0]])
        if np.dot(n, (a + b) / 2 - centre) < 0:
            n = -n
        out.append(float(np.dot((d[k] + d[(k + 1) % 4]) / 2, n)))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: eval-dev-sides.py BIN [NAME ...]")
    binary, names = sys.argv[1], sys.argv[2:]
    if not names:
        names = sorted(f[:-4] for f in os.listdir(set_dir) if f.endswith(".mp4") and "screen" not in f)
    for name in names:
        gt = json.load(open(os.path.join(set_dir, name + ".gt.json")))
        run = subprocess.run([binary, "replay", os.path.join(set_dir, name + ".mp4"), "--card", str(gt["card_type"]),
                              "--overtime", str(gt["overtime"]), "--json", "--trace", "--liveness", "report"],
                             capture_output=True, text=True)
        frames = [e for e in map(json.loads, run.stdout.splitlines()) if e["type"] == "frame"]
        rows = []
        for i, g in enumerate(gt["frames"]):
            card = frames[i].get("card") if i < len(frames) else None
            if not card or not g["fully_inside"] or g.get("yaw") is None:
                continue
            rows.append(side_offsets(g["corners"], card["corners"]) +
                        [abs(card["yaw"] - g["yaw"]), abs(card["pitch"] - g["pitch"])])
        if not rows:
            print(f"{name:32s} no frame with the card fully inside and found")
            continue
        e = np.array(rows)
        fmt = lambda v: " ".join(f"{x:+6.2f}" for x in v)
        print(f"{name:32s} n={len(e):3d}  sides T R B L median {fmt(np.median(e[:, :4], 0))}"
              f"  p90|.| {fmt(np.percentile(abs(e[:, :4]), 90, 0))}"
              f"  yaw/pitch err p90 {np.percentile(e[:, 4], 90):.1f}/{np.percentile(e[:, 5], 90):.1f}")


if __name__ == "__main__":
    main()
