#!/usr/bin/env python3
"""compare_sweeps.py A B: the folders two sweeps of one campaign wrote (one per launcher) hold the
same thing, field by field, times and measurements aside:
  - the same result files (point ids), env files and index points;
  - every result document and env file has the same members at every level, lists of objects
    the same length, and the same strings and booleans, except times, the server's port and
    the host's clock; numbers are compared only where they define the point (point, workload);
  - the index lines have the same members and values except time, duration_s and slurm_steps
    (the slurm launcher's step ids; checked by the caller).
Prints one line per difference and exits 1 if there is any."""
import glob
import json
import os
import sys

# Strings that differ between two runs of one campaign.
VARYING = {"start_time", "server_address", "captured_at", "time", "at_unix_s",
           "tsc_note"}  # (its text quotes the calibration rounds' spread)
# Subtrees whose numbers define the point (compared exactly).
EXACT = ("/point", "/workload")
INDEX_VARYING = {"time", "duration_s", "slurm_steps"}

diffs = []


def walk(a, b, path):
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        diffs.append("%s: %s vs %s" % (path, type(a).__name__, type(b).__name__))
    elif isinstance(a, dict):
        if set(a) != set(b):
            diffs.append("%s: members %s vs %s" % (path, sorted(set(a) - set(b)), sorted(set(b) - set(a))))
        for k in sorted(set(a) & set(b)):
            if k not in VARYING:
                walk(a[k], b[k], path + "/" + k)
    elif isinstance(a, list):
        if any(isinstance(x, dict) for x in a + b) and len(a) != len(b):
            diffs.append("%s: %d vs %d entries" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, "%s/%d" % (path, i))
    elif isinstance(a, (str, bool)) or a is None or path.startswith(EXACT):
        if a != b:
            diffs.append("%s: %r vs %r" % (path, a, b))


def files(d, pattern):
    return sorted(os.path.relpath(f, d) for f in glob.glob(os.path.join(d, pattern)))


def index_points(d):
    lines = [json.loads(l) for l in open(os.path.join(d, "index.jsonl")) if l.strip()]
    return {l["point_id"]: l for l in lines if "point_id" in l}


def main():
    a, b = sys.argv[1], sys.argv[2]
    for pattern in ("*.json", "env/*.json"):
        fa, fb = files(a, pattern), files(b, pattern)
        if fa != fb:
            diffs.append("%s: %s vs %s" % (pattern, fa, fb))
        for f in sorted(set(fa) & set(fb)):
            walk(json.load(open(os.path.join(a, f))), json.load(open(os.path.join(b, f))), f + ":")
    ia, ib = index_points(a), index_points(b)
    if sorted(ia) != sorted(ib):
        diffs.append("index points: %s vs %s" % (sorted(ia), sorted(ib)))
    for p in sorted(set(ia) & set(ib)):
        la = {k: v for k, v in ia[p].items() if k not in INDEX_VARYING}
        lb = {k: v for k, v in ib[p].items() if k not in INDEX_VARYING}
        if la != lb:
            diffs.append("index %s: %s vs %s" % (p, la, lb))
    for d in diffs:
        print("differs: " + d)
    print("compared %d result file(s), %d env file(s), %d index point(s): %d difference(s)"
          % (len(files(a, "*.json")), len(files(a, "env/*.json")), len(ia), len(diffs)))
    return 1 if diffs or not ia else 0


if __name__ == "__main__":
    sys.exit(main())
