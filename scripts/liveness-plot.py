#!/usr/bin/env python3
"""Plots each liveness check's scores, genuine against attack, with its threshold.

    scripts/liveness-plot.py RESULTS.json [RESULTS.json ...] --out PNG [--title TEXT]

RESULTS.json are written by `scripts/liveness-auc.py --json` (one object per
video: name, attack, liveness). One panel per check (opticallyVariable,
blackLevel, chroma, screenGrid): every session's score as a dot, genuine sessions on one
row and attacks on the other (attacks split by kind: colour copy, grey copy,
screen, other, read from the video's name), and the shipped threshold as a
line, so docs/liveness.md can show what each threshold separates. A check
that was never measured on a session (no valid frame, no rotation) is
drawn at the left edge with an open marker.

Needs python3-matplotlib (scripts/install-deps.sh eval).
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CHECKS = [("opticallyVariable", "colour shift between poses (levels)", True),
          ("blackLevel", "black above the darkest in view (share of white)", False),
          ("chroma", "99th-percentile saturation (levels)", True),
          ("screenGrid", "strongest isolated spectral peak of the card's middle (power ratio)", False)]


def kind(row):
    name = row["name"] + " " + row.get("description", "").lower()
    if not row["attack"]:
        return "genuine"
    for key, label in (("colour", "colour copy"), ("grey", "grey copy"), ("black-and-white", "grey copy"),
                       ("screen replay", "screen replay"), ("screen", "screen")):
        if key in name:
            return label
    return row.get("kind") or "attack"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = []
    for path in a.results:
        rows += [r for r in json.load(open(path)) if r.get("liveness") and r["liveness"].get("checks")]
    kinds = ["genuine", "colour copy", "grey copy", "screen", "screen replay", "attack"]
    colours = {"genuine": "tab:green", "colour copy": "tab:orange", "grey copy": "tab:grey",
               "screen": "tab:blue", "screen replay": "tab:purple", "attack": "tab:red"}
    fig, axes = plt.subplots(len(CHECKS), 1, figsize=(9, 2.6 * len(CHECKS)))
    for ax, (check, label, higher_is_genuine) in zip(axes, CHECKS):
        threshold = None
        for row_index, k in enumerate(kinds):
            xs, open_xs = [], []
            for r in rows:
                if kind(r) != k:
                    continue
                c = next((c for c in r["liveness"]["checks"] if c["name"] == check), None)
                if c is None:
                    continue
                threshold = c["threshold"]
                (xs if c["score"] is not None else open_xs).append(c["score"])
            if not xs and not open_xs:
                continue
            jitter = [row_index + 0.25 * ((i * 37 % 11) / 10 - 0.5) for i in range(len(xs))]
            ax.scatter(xs, jitter, s=14, color=colours[k], label=f"{k} ({len(xs)}"
                       + (f", {len(open_xs)} unmeasured)" if open_xs else ")"))
        if threshold is not None:
            ax.axvline(threshold, color="black", linestyle="--", linewidth=1)
            ax.text(threshold, -0.9, f" threshold {threshold:g}", fontsize=8, va="bottom")
        if check in ("opticallyVariable", "screenGrid"):
            ax.set_xscale("symlog", linthresh=1)
        ax.set_yticks(range(len(kinds)))
        ax.set_yticklabels(kinds, fontsize=8)
        ax.set_ylim(-1, len(kinds))
        ax.set_title(f"{check}: {label}; {'higher' if higher_is_genuine else 'lower'} is genuine", fontsize=9)
        ax.legend(fontsize=7, loc="best")
    if a.title:
        fig.suptitle(a.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=90)
    print(f"liveness-plot: {a.out} ({len(rows)} sessions)")


if __name__ == "__main__":
    main()
