#!/usr/bin/env python3
"""ROC-AUC of the liveness spoof score between genuine and attack sessions.

    scripts/liveness-auc.py [--set DIR] [--bin PATH] [--liveness report|enforce] [--all-attacks]
                            [--cases NAME,...] [--json OUT]

Runs `hkid-liveness replay VIDEO --json` on every video of a set laid out
like ../shared/eval-dev (NAME.mp4 + NAME.gt.json; a video whose expected
retCode is 5 is an attack), reads `spoofScore` from the session's final
`liveness` object (the final result's, else the `end` line's), and prints
each video's score and verdict, the AUC (the probability that a random
attack scores above a random genuine session; ties count half) and the
decision errors at the shipped thresholds. `--all-attacks` counts every video
as an attack (../shared/eval-real: every card there is a grey paper copy, and
no verdict may be `genuine`). `--json` writes each video's liveness object
(for scripts/liveness-plot.py). Report mode is the default so
that every session runs to its natural end: its score is the evidence of
the whole video, or, when an interim verdict failed on the way (as enforce
would have stopped the session there), that verdict's.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def session_liveness(bin_path, video, card, overtime, mode):
    out = subprocess.run([bin_path, "replay", video, "--card", card, "--overtime", str(overtime), "--json",
                          "--liveness", mode], capture_output=True, text=True, timeout=600)
    liveness, ret = None, None
    for line in out.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get("type") == "result" and obj.get("retCode") != 1:
            ret = obj.get("retCode") if ret is None else ret
            liveness = liveness or obj.get("liveness")
        elif obj.get("type") == "end" and liveness is None:
            liveness = obj.get("liveness")
    return liveness, ret, out.returncode, out.stderr.strip().splitlines()[-1:] if out.returncode else []


def auc(genuine, attacks):
    if not genuine or not attacks:
        return float("nan")
    wins = sum((a > g) + 0.5 * (a == g) for a in attacks for g in genuine)
    return wins / (len(genuine) * len(attacks))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default=os.path.join(here, "..", "..", "shared", "eval-dev"))
    ap.add_argument("--bin", default=os.path.join(here, "..", ".build", "release", "hkid-liveness"))
    ap.add_argument("--liveness", default="report", choices=["report", "enforce"])
    ap.add_argument("--all-attacks", action="store_true", help="every video is an attack (eval-real)")
    ap.add_argument("--cases", help="comma-separated names (default: every video of the set)")
    ap.add_argument("--json", help="write each video's liveness object and expectation here")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    # A video without ground truth (eval-real's banknote) is not a session to score.
    videos = sorted(v for v in glob.glob(os.path.join(args.set, "*.mp4")) if os.path.isfile(v[:-4] + ".gt.json"))
    if args.cases:
        wanted = set(args.cases.split(","))
        videos = [v for v in videos if os.path.basename(v)[:-4] in wanted]
    if not videos:
        sys.exit(f"liveness-auc: no videos in {args.set}")

    descriptions = {}

    def one(video):
        gt = json.load(open(video[:-4] + ".gt.json"))
        attack = args.all_attacks or gt["expected"]["retCode"] == 5
        liveness, ret, rc, err = session_liveness(args.bin, video, gt["card_type"], gt.get("overtime", 30),
                                                  args.liveness)
        descriptions[os.path.basename(video)[:-4]] = gt.get("description", "")
        return os.path.basename(video)[:-4], attack, liveness, ret, rc, err

    with ThreadPoolExecutor(args.j) as pool:
        rows = list(pool.map(one, videos))
    genuine, attacks, errors = [], [], 0
    verdicts = {}
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"name": name, "description": descriptions[name], "attack": attack, "retCode": ret,
                        "liveness": liveness}
                       for name, attack, liveness, ret, rc, err in rows], f)
    for name, attack, liveness, ret, rc, err in rows:
        if rc != 0:
            print(f"{name:34s} exit {rc} {' '.join(err)}")
            continue
        if not liveness or liveness["verdict"] == "unmeasured" or \
                all(c["score"] is None for c in liveness.get("checks", [])):
            print(f"{name:34s} {'attack ' if attack else 'genuine'} nothing measured: not scored (retCode {ret})")
            continue
        score = liveness["spoofScore"]
        verdict = liveness["verdict"]
        key = ("attack " if attack else "genuine") + " " + verdict
        verdicts[key] = verdicts.get(key, 0) + 1
        (attacks if attack else genuine).append(score)
        wrong = (verdict == "spoof") != attack and verdict != "unmeasured"
        errors += wrong
        checks = " ".join(f"{c['name']}={c['score']}" for c in liveness.get("checks", []))
        print(f"{name:34s} {'attack ' if attack else 'genuine'} score {score:.3f} {verdict:9s} ret {ret}"
              f"{' WRONG' if wrong else '      '} {checks}")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print(f"liveness: AUC {auc(genuine, attacks):.3f} over {len(genuine)} genuine and {len(attacks)} attack "
          f"sessions; {errors} wrong verdicts at the shipped thresholds")


if __name__ == "__main__":
    main()
