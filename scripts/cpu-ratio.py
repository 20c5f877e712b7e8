#!/usr/bin/env python3
"""CPU seconds of `replay` over decode-only CPU seconds of the same files.

    scripts/cpu-ratio.py [--runs 3] BIN [BIN ...] -- VIDEO [VIDEO ...]

For each video: user + sys CPU seconds of `BIN replay VIDEO --json --trace`
(every binary given, interleaved, so two builds compare in one run) and of
`gst-launch-1.0 filesrc ! decodebin ! fakesink sync=false`, the median of
--runs each; prints each video's ratio per binary and the ratio of the sums.
CPU time, not wall time: it holds on any number of cores and on a busy host.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def replay_cmd(binary, video):
    cmd = [binary, "replay", video, "--json", "--trace", "--liveness", "report"]
    truth = video[:-4] + ".gt.json"
    if os.path.exists(truth):
        gt = json.load(open(truth))
        cmd += ["--card", str(gt["card_type"]), "--overtime", str(gt["overtime"])]
    return cmd


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: cpu-ratio.py [--runs N] BIN [BIN ...] -- VIDEO [VIDEO ...]")
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args(argv[:split])
    binaries, videos = args.binaries, argv[split + 1:]
    decode_total, replay_total = 0.0, [0.0] * len(binaries)
    for video in videos:
        decode, replay = [], [[] for _ in binaries]
        for _ in range(args.runs):
            decode.append(cpu_of(["gst-launch-1.0", "-q", "filesrc", f"location={video}", "!", "decodebin", "!",
                                  "fakesink", "sync=false"]))
            for i, binary in enumerate(binaries):
                replay[i].append(cpu_of(replay_cmd(binary, video)))
        d = statistics.median(decode)
        decode_total += d
        ratios = []
        for i in range(len(binaries)):
            r = statistics.median(replay[i])
            replay_total[i] += r
            ratios.append(f"{r / d:.2f}")
        print(f"{os.path.basename(video):40s} decode {d:6.2f} s  replay/decode {'  '.join(ratios)}", flush=True)
    print(f"{'all':40s} decode {decode_total:6.2f} s  replay/decode "
          + "  ".join(f"{t / decode_total:.2f}" for t in replay_total))


if __name__ == "__main__":
    main()
