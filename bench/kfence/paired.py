#!/usr/bin/env python3
"""Paired comparisons for the KFENCE benchmarks (run.sh, programs.sh).

Each round runs every configuration once, in random order, so the ratio of
a configuration to the baseline of the same round cancels the machine's
drift. The figures are the median of those per-round ratios (bursts of load
move it less than the mean) and their mean, each with a 95% bootstrap
interval.

On a VM the per-run spread can exceed the effect by far: on the sessions'
Firecracker VM a fixed 0.1 s spin loop took 0.08 to 0.25 s of CPU time
within a minute, and its two vCPUs ran 2.5 times apart for minutes. So each
comparison also says how many rounds would narrow its interval to
+-0.5 points, assuming the width falls as 1/sqrt(rounds): whether a 1%
target can be settled on this machine at all.

  paired.py FILE BASE [CONFIG...]

FILE has one "round config value" line per run; prints one line per CONFIG
(default: every configuration but BASE).
"""
import random
import statistics
import sys

BOOTSTRAP = 4000
TARGET_HALF_WIDTH = 0.5  # points


def load(path):
    """{config: {round: value}} from "round config value" lines."""
    runs = {}
    for line in open(path):
        r, c, v = line.split()
        runs.setdefault(c, {})[r] = float(v)
    return runs


def ratios(runs, config, base):
    """Per-round overheads of config over base, in percent."""
    b = runs[base]
    return [100 * (v / b[r] - 1) for r, v in runs[config].items() if b.get(r, 0) > 0]


def interval(xs, stat):
    """95% bootstrap interval of stat(xs); seeded, so reruns agree."""
    rng = random.Random(1)
    boot = sorted(stat(rng.choices(xs, k=len(xs))) for _ in range(BOOTSTRAP))
    return boot[int(0.025 * BOOTSTRAP)], boot[int(0.975 * BOOTSTRAP) - 1]


def rounds_needed(n, lo, hi):
    """Rounds for a 95% interval of +-TARGET_HALF_WIDTH points, from an
    interval (lo, hi) over n rounds."""
    half = (hi - lo) / 2
    return max(n, round(n * (half / TARGET_HALF_WIDTH) ** 2))


def describe(xs, stat):
    """'+1.00% (+0.43 .. +1.76)' for stat over the per-round overheads."""
    lo, hi = interval(xs, stat)
    return "%+.2f%% (%+.2f .. %+.2f)" % (stat(xs), lo, hi)


MIN_ROUNDS = 20  # fewer cannot estimate the spread


def compare(xs):
    """The median with its interval, and how settled it is:
    ('+1.00% (+0.43 .. +1.76)', 'sd 10.6, +-0.5 needs 3650 rounds')."""
    lo, hi = interval(xs, statistics.median)
    median = "%+.2f%% (%+.2f .. %+.2f)" % (statistics.median(xs), lo, hi)
    if len(xs) < MIN_ROUNDS:
        return median, "too few rounds to tell the spread"
    return median, "sd %.1f, +-%.1f needs %d rounds" % (
        statistics.stdev(xs), TARGET_HALF_WIDTH, rounds_needed(len(xs), lo, hi))


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: paired.py FILE BASE [CONFIG...]")
    runs = load(argv[1])
    base = argv[2]
    configs = argv[3:] or [c for c in runs if c != base]
    for c in configs:
        if c == base:
            continue
        xs = ratios(runs, c, base)
        median, spread = compare(xs)
        print("%-13s paired vs %s: median %s, mean %s; %s"
              % (c, base, median, describe(xs, statistics.mean), spread))


if __name__ == "__main__":
    main(sys.argv)
