#!/usr/bin/env python3
"""The black level frame by frame: what each tracked frame of a video reads, and why.

    scripts/liveness-black-frames.py VIDEO --card 2018|2003 [--bin PATH] [--every N] [--png DIR]

`hkid-liveness replay --json --trace` gives each frame's followed quad, pose,
width, glare and sharpness, and the session's black level (a median), not the
frame's. This replays VIDEO with the trace, then re-reads each tracked frame
as src/liveness.cpp does: the card rectified onto 128 x 80 luma (full range),
its inner 88 %, its 1st and 98th percentiles (p1, p98), the frame's 0.5th
percentile on every 8th pixel (floor), and

    black = max(0, p1 - floor) / (p98 - floor),

on the frames that show the material (the whole card 2 % inside the frame,
0.25-0.90 of its width, glare at most 0.25: the defaults). It is a
re-reading in OpenCV's decoder and warp, not the shim's own numbers: medians
agree with the shim's to about 0.01. Prints a line every N tracked frames
(default 3) and the medians; --png writes every 15th material frame with its
followed quad drawn, and its rectified card, to look at.

Needs Debian's python3-opencv and python3-numpy (run it with /usr/bin/python3).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 128, 80


def material(card, width, height):
    mx, my = 0.02 * width, 0.02 * height
    inside = all(mx <= x <= width - 1 - mx and my <= y <= height - 1 - my for x, y in card["corners"])
    return inside and 0.25 <= card["width_ratio"] <= 0.90 and card["glare"] <= 0.25


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video")
    ap.add_argument("--card", required=True, choices=["2018", "2003"])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", ".build", "release", "hkid-liveness"))
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--png")
    a = ap.parse_args()
    if not os.path.isfile(a.video):
        sys.exit(f"liveness-black-frames: {a.video}: no such file")
    run = subprocess.run([a.bin, "replay", a.video, "--card", a.card, "--json", "--trace", "--liveness", "report"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"liveness-black-frames: {a.video}: replay failed: {run.stderr.strip()[-200:]}")
    traced = {}
    for line in run.stdout.splitlines():
        obj = json.loads(line)
        if obj.get("type") == "frame" and obj.get("card"):
            traced[round(obj["t"], 3)] = obj["card"]
        if obj.get("type") == "end":
            checks = {c["name"]: c for c in (obj.get("liveness") or {}).get("checks", [])}
            print(f"session: blackLevel {checks.get('blackLevel', {}).get('score')} over "
                  f"{checks.get('blackLevel', {}).get('frames')} frames (the first failed early verdict's, if any)")
    if a.png:
        os.makedirs(a.png, exist_ok=True)
    capture = cv2.VideoCapture(a.video)
    fps = capture.get(cv2.CAP_PROP_FPS) or 30
    rows, index = [], 0
    print(f"{'t':>6s} {'mat':>3s} {'width':>5s} {'glare':>5s} {'sharp':>5s} {'yaw':>6s} {'pitch':>6s} "
          f"{'p1':>4s} {'p98':>4s} {'floor':>5s} {'black':>6s}")
    while True:
        ok, image = capture.read()
        if not ok:
            break
        t = index / fps
        index += 1
        card = traced.get(round(t, 3)) or next((c for k, c in traced.items() if abs(k - t) < 0.5 / fps), None)
        if card is None:
            continue
        luma = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)[:, :, 0]
        quad = np.float32(card["corners"])
        to_card = cv2.getPerspectiveTransform(np.float32([[0, 0], [W, 0], [W, H], [0, H]]), quad)
        raster = cv2.warpPerspective(luma, to_card, (W, H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        mx, my = W * 6 // 100, H * 6 // 100
        inner = raster[my:H - my, mx:W - mx]
        p1, p98 = (int(np.percentile(inner, p, method="lower")) for p in (1, 98))
        floor = int(np.percentile(luma[4::8, 4::8], 0.5, method="lower"))
        black = max(0, p1 - floor) / (p98 - floor) if p98 > floor else 1.0
        row = dict(t=t, material=material(card, luma.shape[1], luma.shape[0]), width=card["width_ratio"],
                   glare=card["glare"], sharpness=card["sharpness"], yaw=card["yaw"], pitch=card["pitch"],
                   p1=p1, p98=p98, floor=floor, black=black)
        rows.append(row)
        if (len(rows) - 1) % a.every == 0:
            print(f"{t:6.2f} {'yes' if row['material'] else 'no':>3s} {row['width']:5.3f} {row['glare']:5.3f} "
                  f"{row['sharpness']:5.3f} {row['yaw']:6.1f} {row['pitch']:6.1f} {p1:4d} {p98:4d} {floor:5d} {black:6.3f}")
        shown = [r for r in rows if r["material"]]
        if a.png and row["material"] and len(shown) % 15 == 1:
            base = os.path.join(a.png, f"{os.path.basename(a.video)[:-4]}_{t:06.2f}")
            cv2.polylines(image, [quad.astype(np.int32)], True, (0, 0, 255), 2)
            cv2.imwrite(base + "_frame.png", image)
            cv2.imwrite(base + "_card.png", cv2.resize(raster, (W * 4, H * 4), interpolation=cv2.INTER_NEAREST))
    shown = [r for r in rows if r["material"]]
    if not shown:
        print(f"{len(rows)} tracked frames, none shows the material")
        return
    first = shown[:30]
    print(f"{len(rows)} tracked frames, {len(shown)} show the material; black level median "
          f"{statistics.median(r['black'] for r in shown):.3f} (the first 30: "
          f"{statistics.median(r['black'] for r in first):.3f}); medians p1 {statistics.median(r['p1'] for r in shown)}, "
          f"p98 {statistics.median(r['p98'] for r in shown)}, floor {statistics.median(r['floor'] for r in shown)}")


if __name__ == "__main__":
    main()
