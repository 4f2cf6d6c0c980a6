"""Constants and small helpers every module of vs-perftest shares."""
import json
import os
import sys

FORMAT = "rdmabench-vs-perftest"
FORMAT_VERSION = 1
KIB = 1024
MIB = 1024 * 1024


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg, status=2):
    print(f"vs-perftest: error: {msg}", file=sys.stderr)
    sys.exit(status)


def size_text(n):
    if n >= MIB and n % MIB == 0:
        return f"{n // MIB}M"
    if n >= KIB and n % KIB == 0:
        return f"{n // KIB}K"
    return str(n)


def write_json(path, obj):
    """Writes `obj` to `path` atomically: a temporary file beside it, then renamed over it."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
