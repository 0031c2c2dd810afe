#!/usr/bin/env python3
"""Sums heaptrack_print's peak memory consumers by the first frame of a named library in
their stacks (kube's runtime, kondition, serde, hyper, rustls, tokio, ...), so that a heap
profile says where its peak lives: bench/side_by_side.sh --heap prints it.

    python3 bench/heap_peaks.py PROFILE.txt
"""

import re
import sys
from collections import defaultdict

UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
SIZE = re.compile(r"^\s*([0-9.]+)([KMG]?) (?:peak memory )?consumed over (\d+) calls from")
PLACES = [
    ("kube-runtime's reflector store", "reflector::store"),
    ("kube-runtime's reflector store", "apply_watcher_event"),
    ("kube-runtime's scheduler (requeues)", "kube_runtime::scheduler"),
    ("kube-runtime's watcher (lists, events)", "kube_runtime::watcher"),
    ("kube-runtime's controller (runner)", "kube_runtime::controller"),
    ("kondition's chokepoint", "kondition::"),
    ("deserializing objects (serde, k8s-openapi)", "serde"),
    ("HTTP and TLS (hyper, rustls)", "hyper"),
    ("HTTP and TLS (hyper, rustls)", "rustls"),
    ("tokio", "tokio::"),
]


def main(path):
    lines = open(path, errors="replace").read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("PEAK MEMORY CONSUMERS"))
    end = next((i for i, l in enumerate(lines) if i > start and l.startswith("MOST TEMPORARY")), len(lines))
    totals = defaultdict(float)
    block, size = [], None

    def flush():
        if size is None:
            return
        # The frame nearest the allocation that names a known place decides.
        for frame in block:
            for name, needle in PLACES:
                if needle in frame:
                    totals[name] += size
                    return
        totals["elsewhere"] += size

    for line in lines[start + 1:end]:
        m = SIZE.match(line)
        # A top-level consumer ("peak memory consumed") is split into the stacks that reach
        # it ("consumed"): count those.
        if m and "peak memory" not in line:
            flush()
            block, size = [], float(m.group(1)) * UNITS[m.group(2)]
        elif m:
            flush()
            block, size = [], None
        else:
            block.append(line)
    flush()
    peak = next((l for l in lines if l.startswith("peak heap memory consumption")), "")
    print(peak)
    for name, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {total / 1024**2:7.2f} MiB  {name}")


if __name__ == "__main__":
    main(sys.argv[1])
