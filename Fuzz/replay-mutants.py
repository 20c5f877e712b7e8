#!/usr/bin/env python3
"""Mutation fuzzing of `hkid-liveness replay`: the container, the decoder and
the pipeline code, which the libFuzzer target (fuzz_frame.cpp) does not reach.

Each mutant is a sample with bits flipped, a block zeroed, a block deleted or
its tail cut off, replayed by the real binary. A mutant is kept in OUT (default
fuzz-out/replay) when the run breaks the bad-input contract: an exit status
other than 0 or 2, more than one line on stderr, or longer than --slow seconds
(a stall). The summary counts outcomes by mutation and by error message.

Usage: Fuzz/replay-mutants.py [--count N] [--seed S] [--binary PATH] SAMPLE...
"""
import argparse
import collections
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    b = bytearray(data)
    kind = rng.choice(["flip", "flip", "zero", "delete", "cut"])
    if kind == "flip":
        for _ in range(rng.choice([1, 4, 16, 64])):
            p = rng.randrange(len(b))
            b[p] ^= 1 << rng.randrange(8)
    elif kind == "zero":
        p, n = rng.randrange(len(b)), rng.choice([16, 256, 4096])
        b[p:p + n] = bytes(len(b[p:p + n]))
    elif kind == "delete":
        p = rng.randrange(len(b))
        del b[p:p + rng.choice([16, 256, 4096])]
    else:
        del b[rng.randrange(len(b)):]
    return kind, bytes(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="+")
    parser.add_argument("--count", type=int, default=200, help="mutants per sample")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/hkid-liveness"))
    parser.add_argument("--slow", type=float, default=5.0, help="seconds after which a run counts as a stall")
    parser.add_argument("--out", default=os.path.join(ROOT, "fuzz-out/replay"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rng = random.Random(args.seed)
    outcomes = collections.Counter()
    reasons = collections.Counter()
    kept = []
    for sample in args.samples:
        data = open(sample, "rb").read()
        for index in range(args.count):
            kind, mutant = mutate(data, rng)
            path = os.path.join(args.out, f"{os.path.basename(sample)}.{args.seed}.{index}.mp4")
            with open(path, "wb") as file:
                file.write(mutant)
            started = time.monotonic()
            try:
                run = subprocess.run([args.binary, "replay", path, "--json"], capture_output=True, timeout=60)
                status, stderr = run.returncode, run.stderr.decode(errors="replace").strip()
            except subprocess.TimeoutExpired:
                status, stderr = "timeout", ""
            seconds = time.monotonic() - started
            lines = len(stderr.splitlines())
            outcomes[(kind, status)] += 1
            if stderr:
                # The reason without the file name and the exact times.
                reasons[re.sub(r"[0-9]+\.[0-9]+ s", "N s", stderr.split(": ", 2)[-1])] += 1
            if status not in (0, 2) or lines > 1 or seconds > args.slow:
                kept.append(f"{path}: exit {status}, {lines} stderr lines, {seconds:.1f} s")
            else:
                os.remove(path)

    total = sum(outcomes.values())
    print(f"{total} mutants of {len(args.samples)} sample(s), seed {args.seed}")
    for (kind, status), n in sorted(outcomes.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        print(f"  {kind:<7} exit {status}: {n}")
    print("stderr reasons:")
    for reason, n in reasons.most_common():
        print(f"  {n:4}  {reason}")
    print(f"broke the contract: {len(kept)}")
    for line in kept:
        print("  " + line)
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
