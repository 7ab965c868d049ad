#!/usr/bin/env python3
"""Check an exageostat Chrome trace (real or simulated) as an HPC user's
script would read it: every transfer slice names its source, destination,
tile and bytes; no two slices of one lane overlap partially; every flow has
a start and an end. Prints a one-line summary and exits 1 on a problem.

    python3 scripts/check-trace.py trace.json
"""
import json
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    problems = []
    lanes = defaultdict(list)
    flows = defaultdict(list)
    transfers = tasks = 0
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e.get("dur", 0), e["name"]))
            if e.get("cat") == "transfer":
                transfers += 1
                a = e.get("args", {})
                for k in ("src", "dst", "tile", "bytes"):
                    if k not in a or a[k] in ("", None):
                        problems.append("transfer %s at %.3f us lacks %s" % (e["name"], e["ts"], k))
                if a.get("bytes", 0) <= 0:
                    problems.append("transfer %s at %.3f us has no bytes" % (e["name"], e["ts"]))
            elif e.get("cat") == "task":
                tasks += 1
        elif ph in ("s", "f"):
            flows[e["id"]].append(ph)
    for (pid, tid), s in lanes.items():
        s.sort(key=lambda x: (x[0], -x[1]))  # parents before the slices they hold
        for (a0, a1, an), (b0, b1, bn) in zip(s, s[1:]):
            # b starts inside a and ends after it: a partial overlap.
            if b0 < a1 - 1e-6 and b1 > a1 + 1e-6:
                problems.append("rank %d lane %d: %s [%.3f, %.3f] and %s [%.3f, %.3f] overlap partially"
                                % (pid, tid, an, a0, a1, bn, b0, b1))
    for i, f in flows.items():
        if sorted(f) != ["f", "s"]:
            problems.append("flow %d has %s" % (i, f))
    for p in problems[:20]:
        print(p)
    print("%s: %d tasks, %d transfer slices, %d flows, %d lanes, %d problems"
          % (path, tasks, transfers, len(flows), len(lanes), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
