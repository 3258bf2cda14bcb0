#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_table.py - medians and ratios of two implementations as Markdown.

Used by bench/side_by_side.sh and bench/local_bench.sh. Reads a results
file with one sample per line, tab-separated:

    GROUP  IMPL  METRIC  VALUE

VALUE is a number, "failed" or "n/a". For every GROUP (in order of first
appearance) it prints a Markdown table with one row per METRIC: the median
over the runs of IMPL A and of IMPL B, and the ratio A/B (lower is better
for A when the metric is a time). Samples of any other IMPL (a baseline
such as srun --mpi=none) are printed under the table. A median is taken over the runs that
succeeded; "(k/n)" after it says that only k of n runs gave a value; a
metric no run of an implementation could measure is shown as "failed".

Usage: bench_table.py RESULTS IMPL_A IMPL_B [LABEL_A LABEL_B]
"""
import statistics
import sys


def load(path):
    groups = {}
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 4:
            continue
        group, impl, metric, value = parts
        if not (group and impl and metric and value):
            continue
        metrics = groups.setdefault(group, {})
        metrics.setdefault(metric, {}).setdefault(impl, []).append(value)
    return groups


def fmt(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.3g" % x


def cell(values):
    """(text, median or None) for the samples of one implementation."""
    if not values:
        return "-", None
    if all(v == "n/a" for v in values):
        return "n/a", None
    nums = []
    for v in values:
        try:
            nums.append(float(v))
        except ValueError:
            pass
    if not nums:
        return "failed (0/%d)" % len(values), None
    med = statistics.median(nums)
    text = fmt(med)
    if len(nums) < len(values):
        text += " (%d/%d)" % (len(nums), len(values))
    return text, med


def table(metrics, a, b, la, lb):
    print("| metric | %s median | %s median | ratio %s/%s |" % (la, lb, la, lb))
    print("|---|---:|---:|---:|")
    for metric, by_impl in metrics.items():
        if a not in by_impl and b not in by_impl:
            continue
        ta, ma = cell(by_impl.get(a, []))
        tb, mb = cell(by_impl.get(b, []))
        ratio = "-"
        if ma is not None and mb:
            ratio = fmt(ma / mb)
        print("| %s | %s | %s | %s |" % (metric, ta, tb, ratio))
    for metric, by_impl in metrics.items():
        for impl, values in by_impl.items():
            if impl not in (a, b):
                print("\n%s under %s: median %s" % (metric, impl, cell(values)[0]))


def main(argv):
    if len(argv) not in (4, 6):
        sys.stderr.write(__doc__)
        return 2
    a, b = argv[2], argv[3]
    la, lb = (argv[4], argv[5]) if len(argv) == 6 else (a, b)
    for group, metrics in load(argv[1]).items():
        print("\n### %s\n" % group)
        table(metrics, a, b, la, lb)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
