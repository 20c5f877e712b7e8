#!/usr/bin/env python3
"""Renders screen replay attacks: a phone, tablet or monitor playing a genuine recording, re-filmed.

    scripts/liveness-screen-replays.py --recordings 'GLOB' [--out DIR] [-n N] [--seed S] [-j J]

Each attack takes a genuine recording (one of --recordings: our own genuine
renders from scripts/liveness-renders.py, or the genuine samples; never the
evaluation sets) and films it the way it happens:

1. The recording as someone else's camera made it: its own white balance,
   noise and compression (JPEG at quality 30-75 a frame).
2. Shown on a screen: a phone (400-460 ppi), a tablet (220-265 ppi) or a
   monitor (90-110 ppi), bright or dim, its black lifted by the room's light
   on the glass (2-12 % of its white), a cool or warm white point, and the
   display's pixel grid: each pixel is three vertical R, G, B stripes
   (each 22-30 % of the pixel's width) with a dark gap between rows.
3. Filmed by the attacker's webcam: the screen held in a hand (a homography
   that drifts, rolls and tilts a little over time), the video it plays
   spanning 75-135 % of the view's width: above 100 % no bezel is in view; below it the screen's
   bezel (none to 12 mm), the room behind it, a flat reflection on the glass
   and fingers on its edge may be. The lens blurs (0.3-0.9 px) and every
   sensor pixel integrates its area, which leaves some of the pixel grid
   as moire (computed per pixel from the grid's Fourier series, each
   harmonic attenuated at the camera frequency the homography maps it to at
   the view's centre; the phase is the screen coordinate each pixel centre
   sees, so the aliasing is the sensor's). Then noise, one of the three camera tone
   curves of liveness-renders.py (as-is, lifted blacks, washed out) and
   H.264 at quantizer 18-30 or MPEG-4 (OpenCV's FFmpeg writer).

What this cannot test: a real display's sub-pixel layouts other than RGB
stripes (PenTile OLED, which has a different grid), a camera's
demosaicing and sharpening (which make or remove moire), rolling-shutter
refresh bands, and any screen far enough from the camera that its pixels
are several camera pixels wide (then the grid is plainly visible, which
is easier, not harder).

Writes DIR/NAME.mp4 and DIR/NAME.gt.json (card_type, overtime, expected.retCode 5,
description, the plan drawn) for scripts/liveness-auc.py. Needs Debian's
python3-opencv and python3-numpy (run it with /usr/bin/python3) and
gst-launch-1.0 with x264enc (MPEG-4 goes through OpenCV). 24 attacks took 4 minutes at -j 2 on the
shared 2-core host (2026-11-28).
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "samples", "photos")
_spec = importlib.util.spec_from_file_location("renders", os.path.join(HERE, "liveness-renders.py"))
renders = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(renders)

# Display kinds: pixels per inch, display width x height in mm (landscape), bezel range in mm.
DISPLAYS = {"phone": ((400, 460), (140, 65), (0.5, 5)), "tablet": ((220, 265), (200, 140), (0.5, 12)),
            "monitor": ((90, 110), (530, 300), (0.5, 15))}
SIZES = [(640, 480), (640, 480), (960, 540), (960, 540), (1280, 720)]


def plan(rng, recording):
    kind = rng.choice(["phone", "phone", "tablet", "monitor"])
    (ppi_lo, ppi_hi), (dw_mm, dh_mm), (bz_lo, bz_hi) = DISPLAYS[kind]
    return {
        "recording": recording, "display": kind, "ppi": rng.uniform(ppi_lo, ppi_hi), "display_mm": (dw_mm, dh_mm),
        "bezel_mm": rng.choice([bz_lo, rng.uniform(bz_lo, bz_hi)]), "fill": rng.uniform(0.75, 1.35),
        "size": rng.choice(SIZES), "wb": [rng.uniform(0.88, 1.12) for _ in range(3)],
        "rec_noise": rng.uniform(0.5, 3), "rec_jpeg": rng.randint(30, 75),
        "screen_black": rng.uniform(0.02, 0.12), "screen_white": rng.uniform(0.7, 1.05),
        "white_point": rng.choice([(1.06, 1.0, 0.94), (1.0, 1.0, 1.0), (0.95, 1.0, 1.04)]),
        "stripe_duty": rng.uniform(0.22, 0.30), "row_duty": rng.uniform(0.75, 0.9),
        "lens_sigma": rng.uniform(0.3, 0.9), "noise": rng.uniform(1, 4), "reflection": rng.uniform(0, 0.12),
        "fingers": rng.random() < 0.5, "roll": rng.uniform(-6, 6), "tilt": rng.uniform(-0.08, 0.08),
        "drift_px": rng.uniform(2, 10), "background": rng.choice(["brick.jpg", "coffee.jpg", "gravel.jpg",
                                                                  "chelsea.jpg", "grass.jpg"]),
        "camera": rng.choice(["as-is", "as-is", "lifted", "washed"]),
        "codec": rng.choice(["h264", "h264", "h264", "mpeg4"]), "quantizer": rng.randint(18, 30),
        "seed": rng.randrange(1 << 30)}


class Encoder:
    """Writes BGR frames to an MP4: H.264 through gst-launch (x264enc at a fixed quantizer), MPEG-4 Part 2
    through OpenCV's FFmpeg writer. Not avenc_mpeg4 in gst-launch: it gives its packets no timestamps, and
    mp4mux then stamps every frame 0, which makes a session's timers and the card's speed meaningless."""

    def __init__(self, path, codec, quantizer, W, H, fps):
        self.gst = None
        self.cv = None
        if codec == "h264":
            self.gst = subprocess.Popen(
                ["gst-launch-1.0", "-q", "fdsrc", "!", "rawvideoparse", f"width={W}", f"height={H}", "format=bgr",
                 f"framerate={int(round(fps * 1000))}/1000", "!", "videoconvert", "!", "video/x-raw,format=I420",
                 "!", "x264enc", "pass=quant", f"quantizer={quantizer}", "speed-preset=faster", "key-int-max=60",
                 "!", "mp4mux", "!", "filesink", f"location={path}"], stdin=subprocess.PIPE)
        else:
            self.cv = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), fps, (W, H))
            if not self.cv.isOpened():
                raise SystemExit(f"liveness-screen-replays: {path}: OpenCV cannot write MPEG-4")

    def write(self, frame):
        if self.gst:
            self.gst.stdin.write(np.ascontiguousarray(frame).tobytes())
        else:
            self.cv.write(frame)

    def close(self):
        if self.gst:
            self.gst.stdin.close()
            return self.gst.wait() == 0
        self.cv.release()
        return True


def polygon_mask(points, homography, W, H):
    """1 inside the polygon mapped by homography into a W x H view, 0 outside, antialiased."""
    corners = cv2.perspectiveTransform(points[None], homography)[0]
    mask = np.zeros((H, W), np.float32)
    cv2.fillConvexPoly(mask, np.round(corners * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    return mask


def recorded(frame, p):
    """The recording as another camera made it: white balance, noise, JPEG."""
    f = frame.astype(np.float32) * np.array(p["wb"], np.float32)
    noise = np.empty_like(f)
    cv2.randn(noise, 0, p["rec_noise"])
    f += noise
    ok, jpg = cv2.imencode(".jpg", np.clip(f, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, p["rec_jpeg"]])
    return cv2.imdecode(jpg, cv2.IMREAD_COLOR)


def screen_pose(p, t, W, H, disp_px, video_px):
    """Homography from display pixels (u, v) to camera pixels at time t (seconds): the video shown on the
    display spans p["fill"] of the view's width."""
    dw, dh = disp_px
    scale = p["fill"] * W / video_px
    drift = p["drift_px"]
    cx = W / 2 + drift * math.sin(0.7 * t + 1) + 0.5 * drift * math.sin(2.3 * t)
    cy = H / 2 + drift * math.cos(0.9 * t) + 0.5 * drift * math.sin(1.9 * t + 2)
    roll = math.radians(p["roll"] + 1.5 * math.sin(0.5 * t))
    s = scale * (1 + 0.02 * math.sin(0.4 * t))
    c, si = math.cos(roll) * s, math.sin(roll) * s
    A = np.array([[c, -si, cx - c * dw / 2 + si * dh / 2], [si, c, cy - si * dw / 2 - c * dh / 2], [0, 0, 1]])
    # A little perspective: the screen turned about its vertical centre line. The keystone is taken about
    # the display's centre, so that the picture keeps its aspect there (about its left edge it would be
    # stretched by half the tilt, which no turned screen does).
    tilt = p["tilt"] * (1 + 0.3 * math.sin(0.6 * t)) / dw
    to_centre = np.array([[1, 0, -dw / 2], [0, 1, -dh / 2], [0, 0, 1]])
    T = np.linalg.inv(to_centre) @ np.array([[1, 0, 0], [0, 1, 0], [tilt, 0, 1]]) @ to_centre
    return A @ T


def grid_factors(Hinv, W, H, p):
    """Per camera pixel and channel (B, G, R), the display's pixel grid as the camera sees it. The phase
    is the display coordinate each pixel centre sees; the attenuation of each harmonic is taken at the
    frequency the homography maps it to at the view's centre (the screen is nearly flat-on)."""
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    u = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    v = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    cy, cx = H // 2, W // 2
    ux, uy = u[cy, cx + 1] - u[cy, cx], u[cy + 1, cx] - u[cy, cx]
    vx, vy = v[cy, cx + 1] - v[cy, cx], v[cy + 1, cx] - v[cy, cx]
    u = (u - np.floor(u)).astype(np.float32)
    v = (v - np.floor(v)).astype(np.float32)
    sigma = p["lens_sigma"]

    def mtf(fx, fy):  # lens (Gaussian) times the sensor pixel's area (box)
        return float(np.exp(-2 * math.pi ** 2 * sigma ** 2 * (fx * fx + fy * fy)) * np.sinc(fx) * np.sinc(fy))

    d, dv = p["stripe_duty"], p["row_duty"]
    row = dv + np.float32(2 * math.sin(math.pi * dv) / math.pi * mtf(vx, vy)) * np.cos(np.float32(2 * math.pi) * v)
    out = []
    for k in (2, 1, 0):  # B, G, R; R is the first stripe of a pixel
        centre = k / 3 + d / 2
        col = np.full_like(u, d)
        for n in (1, 2, 3):
            a = 2 * math.sin(math.pi * n * d) / (math.pi * n) * mtf(n * ux, n * uy)
            if abs(a) > 1e-5:
                col += np.float32(a) * np.cos(np.float32(2 * math.pi * n) * (u - np.float32(centre)))
        out.append(col * row / np.float32(d * dv))
    return np.stack(out, axis=-1)


def attack(out, name, p):
    cv2.setRNGSeed(p["seed"])
    cap = cv2.VideoCapture(p["recording"])
    fps = cap.get(cv2.CAP_PROP_FPS) or 20
    rw, rh = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    W, H = p["size"]
    ppmm = p["ppi"] / 25.4
    dw, dh = int(p["display_mm"][0] * ppmm), int(p["display_mm"][1] * ppmm)
    # The recording fitted into the display (letterboxed), in display pixels.
    k = min(dw / rw, dh / rh)
    fit = np.array([[k, 0, (dw - k * rw) / 2], [0, k, (dh - k * rh) / 2], [0, 0, 1]])
    bz = p["bezel_mm"] * ppmm
    glass = np.array([[-bz, -bz], [dw + bz, -bz], [dw + bz, dh + bz], [-bz, dh + bz]], np.float64)
    back = cv2.resize(cv2.imread(os.path.join(PHOTOS, p["background"])), (W, H), interpolation=cv2.INTER_AREA)
    lut = renders.tone(p["camera"]) if p["camera"] != "as-is" else None
    partial = os.path.join(out, name + ".partial.mp4")
    encoder = Encoder(partial, p["codec"], p["quantizer"], W, H, fps)
    tint = np.array(p["white_point"][::-1], np.float32)  # B, G, R
    t = 0.0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        shown = recorded(frame, p).astype(np.float32) / 255.0
        Hs = screen_pose(p, t, W, H, (dw, dh), k * rw)
        # Emitted light: the screen's black (the room on the glass) to its white.
        emitted = p["screen_black"] + (1 - p["screen_black"]) * shown
        content = cv2.warpPerspective(emitted * p["screen_white"] * tint * 235, Hs @ fit, (W, H),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        display = polygon_mask(np.array([[0, 0], [dw, 0], [dw, dh], [0, dh]], np.float64), Hs, W, H)
        letterbox = p["screen_black"] * p["screen_white"] * 235 * tint
        inside_video = polygon_mask(np.array([[0, 0], [rw, 0], [rw, rh], [0, rh]], np.float64), Hs @ fit, W, H)
        img = content + (display - inside_video).clip(0, 1)[..., None] * letterbox
        # The bezel and the room around the glass.
        corners = cv2.perspectiveTransform(glass[None], Hs)[0]
        glass_mask = polygon_mask(glass, Hs, W, H)
        bezel = np.float32(14 + 8 * p["screen_white"])
        outside = back.astype(np.float32) * 0.8
        frame_f = img * display[..., None] + (glass_mask - display).clip(0, 1)[..., None] * bezel + \
            (1 - glass_mask)[..., None] * outside
        if p["fingers"]:  # a thumb over the glass's lower edge and a finger over its side
            for (a, b, r) in ((0.3, 1.0, 0.09), (1.0, 0.6, 0.07)):
                centre = corners[0] + a * (corners[1] - corners[0]) + b * (corners[3] - corners[0])
                cv2.ellipse(frame_f, (int(centre[0]), int(centre[1])), (int(r * W), int(r * W * 0.6)),
                            p["roll"], 0, 360, (120, 150, 200), -1, cv2.LINE_AA)
        # A flat reflection on the glass, moving with the screen.
        if p["reflection"] > 0:
            gx = np.linspace(0, 1, W, dtype=np.float32)[None, :] + np.linspace(0, 0.5, H, dtype=np.float32)[:, None]
            band = np.exp(-((gx - 0.7 - 0.05 * math.sin(t)) / 0.15) ** 2) * p["reflection"] * 255
            frame_f += (band * glass_mask)[..., None]
        frame_f = cv2.GaussianBlur(frame_f, (0, 0), p["lens_sigma"])
        frame_f *= 1 + display[..., None] * (grid_factors(np.linalg.inv(Hs), W, H, p) - 1)
        noise = np.empty_like(frame_f)
        cv2.randn(noise, 0, p["noise"])
        frame_f += noise
        cam = np.clip(frame_f, 0, 255).astype(np.uint8)
        if lut is not None:
            cam = cv2.LUT(cam, lut)
            if p["camera"] == "washed":
                cam = cv2.GaussianBlur(cam, (0, 0), 1.0)
        encoder.write(cam)
        t += 1 / fps
    if not encoder.close():
        raise SystemExit(f"liveness-screen-replays: {name}: encoding failed")
    os.replace(partial, os.path.join(out, name + ".mp4"))
    rec_gt = p["recording"][:-4] + ".gt.json"
    rec_expect = p["recording"][:-4] + ".expect.json"
    card = json.load(open(rec_gt))["card_type"] if os.path.exists(rec_gt) else json.load(open(rec_expect))["cardType"]
    desc = (f"screen replay: a {p['display']} ({p['ppi']:.0f} ppi) filling {p['fill']:.2f} of the view, "
            f"bezel {p['bezel_mm']:.1f} mm, {W}x{H}, {p['camera']} camera, {p['codec']}, "
            f"recording {os.path.basename(p['recording'])}")
    with open(os.path.join(out, name + ".gt.json"), "w") as f:
        json.dump({"card_type": card, "overtime": 30, "camera_curve": p["camera"], "expected": {"retCode": 5},
                   "description": desc, "plan": {k: v for k, v in p.items() if k != "recording"}}, f)
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recordings", required=True, help="glob of genuine recordings (NAME.mp4 + NAME.gt.json "
                    "or NAME.expect.json)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", ".build", "liveness-screens"))
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("-j", type=int, default=1)
    a = ap.parse_args()
    recordings = sorted(glob.glob(a.recordings))
    if not recordings:
        sys.exit(f"liveness-screen-replays: no recordings match {a.recordings}")
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    jobs = [(f"screen_{a.seed}_{i:03d}", plan(rng, recordings[i % len(recordings)])) for i in range(a.n)]
    with ThreadPoolExecutor(a.j) as pool:
        for name in pool.map(lambda j: attack(a.out, *j), jobs):
            print(name, flush=True)


if __name__ == "__main__":
    main()
