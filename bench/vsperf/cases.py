"""The compared workloads: the cases (perftest tool, op, QP type, mode), their sizes and
iteration counts (short by default, --long for latency), the settings both tools are given for
one point, and the check that both ran with them."""
from .common import KIB, MIB, die

BW_SIZES = [8, 64, KIB, 4 * KIB, 64 * KIB, MIB]
LAT_SIZES = [8, 64, KIB, 4 * KIB]
# Read latency (a round trip, as perftest's) at sizes from one word to many packets.
READ_LAT_SIZES = [8, 64, 256, KIB, 4 * KIB, 16 * KIB, 64 * KIB]
ATOMIC_SIZE = 8  # atomics work on one 8-byte word: perftest's atomic tools take no -s at all
# Iterations per size for bandwidth runs: enough messages for a stable average, few enough bytes
# for the emulated testbed (rxe under TCG moves ~5-15 MB/s). --iters-scale multiplies them.
BW_ITERS = {8: 5000, 64: 5000, KIB: 4000, 4 * KIB: 2000, 64 * KIB: 300, MIB: 20}
# Iterations per latency run. A round trip takes ~50-150 us on the emulated testbed; 1,000 of
# them last long enough (~0.1 s) that one scheduler tick or preemption (4 ms) moves few samples.
LAT_ITERS = 1000
MIN_ITERS = 5  # perftest refuses fewer
# --long: latency runs of this many measured iterations, after LONG_WARMUP_SHARE of them as a
# warm-up (rdmabench's own default share); --iters-scale multiplies them too.
LONG_LAT_ITERS = 5000
LONG_WARMUP_SHARE = 0.1
# perftest's -A for rdmabench's atomic ops
PERFTEST_ATOMIC = {"fetch_add": "FETCH_AND_ADD", "cmp_swap": "CMP_AND_SWAP"}


class Case:
    def __init__(self, name, perftest, op, qp, mode, single_packet=False, sizes=None):
        self.name = name            # e.g. write_bw_rc
        self.perftest = perftest    # ib_write_bw ...
        self.op = op
        self.qp = qp
        self.mode = mode
        self.single_packet = single_packet  # sizes must fit one packet (UD; UC ping-pong)
        self.sizes = sizes                  # the full run's sizes, when not all of them

    @property
    def atomic(self):
        """perftest's -A for an atomic case (ib_atomic_*), else None."""
        return PERFTEST_ATOMIC.get(self.op)

    @property
    def fetch(self):
        """Read and atomics: the requester waits for data back, so the latency is a whole round
        trip in both tools (not halved), they carry no payload to inline, and both tools bound
        the outstanding ones (-o)."""
        return self.op == "read" or self.atomic is not None


# Sizes of the default run: on the emulated testbed (host under load) one point of 5 pairs takes
# ~1.5 minutes; the default run measures 34 points (it measured 25, ~45 minutes with --threads
# --memory, before the atomic cases and read latency's sizes above 4 KiB were added); --all
# measures every size of the issue (BW_SIZES, LAT_SIZES, and each case's own).
CASES = [
    Case("write_bw_rc", "ib_write_bw", "write", "rc", "bw", sizes=BW_SIZES),
    Case("send_bw_rc", "ib_send_bw", "send", "rc", "bw", sizes=[8, KIB, 64 * KIB]),
    Case("read_bw_rc", "ib_read_bw", "read", "rc", "bw", sizes=[8, 4 * KIB, MIB]),
    Case("fetch_add_bw_rc", "ib_atomic_bw", "fetch_add", "rc", "bw", sizes=[ATOMIC_SIZE]),
    Case("cmp_swap_bw_rc", "ib_atomic_bw", "cmp_swap", "rc", "bw", sizes=[ATOMIC_SIZE]),
    Case("write_bw_uc", "ib_write_bw", "write", "uc", "bw", sizes=[8, 64 * KIB]),
    Case("send_bw_ud", "ib_send_bw", "send", "ud", "bw", single_packet=True, sizes=[8, KIB]),
    Case("send_lat_rc", "ib_send_lat", "send", "rc", "lat", sizes=[8, KIB, 4 * KIB]),
    Case("write_lat_rc", "ib_write_lat", "write", "rc", "lat", sizes=[8, 4 * KIB]),
    Case("read_lat_rc", "ib_read_lat", "read", "rc", "lat", sizes=READ_LAT_SIZES),
    Case("fetch_add_lat_rc", "ib_atomic_lat", "fetch_add", "rc", "lat", sizes=[ATOMIC_SIZE]),
    Case("cmp_swap_lat_rc", "ib_atomic_lat", "cmp_swap", "rc", "lat", sizes=[ATOMIC_SIZE]),
    # rxe drops a whole multi-packet UC message when one packet is lost, which stops a
    # ping-pong for good: UC latency only at sizes that fit one packet.
    Case("write_lat_uc", "ib_write_lat", "write", "uc", "lat", single_packet=True, sizes=[8]),
    Case("send_lat_ud", "ib_send_lat", "send", "ud", "lat", single_packet=True, sizes=[8]),
]
# --quick: a few points, short (neither the atomics nor read latency's larger sizes).
QUICK_CASES = {"write_bw_rc": [64, 64 * KIB], "send_bw_rc": [64], "read_bw_rc": [64 * KIB],
               "send_lat_rc": [8], "write_lat_rc": [8]}


class Settings:
    """Everything both tools are told, per case and size."""

    def __init__(self, args, case, size):
        self.case = case
        self.size = size
        self.mtu = args.mtu
        self.warmup = 0
        if case.mode == "bw":
            self.iters = max(MIN_ITERS, int(BW_ITERS.get(size, max(MIN_ITERS, 4 * MIB // size))
                                            * args.iters_scale))
            # perftest lowers the send queue to the iteration count when that is smaller
            # ("TX depth : 20" for -n 20): both tools get that depth.
            self.tx_depth = min(128, self.iters)
            self.rx_depth = 512
            # perftest's own default: CQ moderation 100, but 1 above 8 KiB (it warns that
            # moderation distorts large-message results); given explicitly to both tools.
            self.cq_mod = min(100 if size <= 8 * KIB else 1, self.tx_depth)
        else:
            if getattr(args, "long", False):
                # perftest's latency tools have no warm-up option: perftest runs `warmup` more
                # iterations, prints every sample in order (-U), and the script drops the first
                # `warmup` of them (perftest_args, perftest.parse_perftest).
                self.iters = max(MIN_ITERS, int(LONG_LAT_ITERS * args.iters_scale))
                self.warmup = max(1, int(self.iters * LONG_WARMUP_SHARE))
            else:
                self.iters = max(MIN_ITERS, int(LAT_ITERS * args.iters_scale))
            self.tx_depth = 1   # perftest's latency tests use a send queue of 1
            self.rx_depth = 512
            self.cq_mod = 1
        # perftest does not know rxe ("Device not recognized to implement inline feature.
        # Disabling it"), so it never sends inline there: neither does rdmabench here.
        self.inline = 0
        # outstanding reads/atomics: rdmabench uses min(device max, 16)
        self.outs = 16 if case.fetch else None

    @property
    def perftest_iters(self):
        """perftest's -n: its latency samples are the times between consecutive posts (one fewer
        than -n), so with a warm-up, warmup + iters + 1 leave `iters` after the warm-up."""
        return self.warmup + self.iters + 1 if self.warmup else self.iters

    def perftest_args(self, dev, gid, port):
        a = [self.case.perftest, "-d", dev, "-x", str(gid), "-p", str(port)]
        if self.case.atomic:
            a += ["-A", self.case.atomic]  # 8 bytes: the atomic tools refuse any other -s
        else:
            a += ["-s", str(self.size)]
        a += ["-n", str(self.perftest_iters), "-m", str(self.mtu)]
        if self.case.qp != "rc":
            a += ["-c", self.case.qp.upper()]
        if self.case.mode == "bw":
            a += ["-t", str(self.tx_depth), "-Q", str(self.cq_mod), "--report_gbits"]
            if self.case.op == "send":
                a += ["-r", str(self.rx_depth)]
        else:
            # Also print every sample: -H sorted (exact percentiles, CDF buckets); -U in the
            # order measured, so that the warm-up's can be dropped.
            a += ["-U" if self.warmup else "-H"]
            if self.case.op == "send":
                a += ["-r", str(self.rx_depth)]
        if self.outs is not None:
            a += ["-o", str(self.outs)]
        return a

    def rdmabench_args(self):
        a = ["--op", self.case.op, "-c", self.case.qp, "--mode", self.case.mode,
             "-s", str(self.size), "-n", str(self.iters), "--warmup", str(self.warmup),
             "-m", str(self.mtu), "-t", str(self.tx_depth), "-Q", str(self.cq_mod)]
        if self.case.op == "send":
            a += ["-r", str(self.rx_depth)]
        if not self.case.fetch:
            a += ["-I", str(self.inline)]
        return a


def compare_settings(s, header, rb_doc):
    """Names of settings where perftest's banner disagrees with what rdmabench ran."""
    bad = set()
    if header is None:
        return bad
    want = {"mtu": s.mtu, "qp": s.case.qp}
    if s.case.mode == "bw":
        want.update({"tx_depth": s.tx_depth, "cq_mod": s.cq_mod})
    if not s.case.fetch:
        want["inline"] = s.inline
    if s.outs is not None:
        want["outs"] = s.outs
    if s.case.atomic:
        want["atomic"] = s.case.atomic
    for k, v in want.items():
        if k in header and header[k] != v:
            bad.add(f"perftest {k}={header[k]} (asked {v})")
    if rb_doc is not None:
        w = rb_doc["workload"]
        mtu = w["mtu"] or rb_doc["devices"]["client"].get("active_mtu")
        if mtu != s.mtu:
            bad.add(f"rdmabench mtu={mtu}")
        for k, v in (("tx_depth", s.tx_depth), ("signal_every", s.cq_mod), ("qp", s.case.qp)):
            if w.get(k) != v:
                bad.add(f"rdmabench {k}={w.get(k)} (asked {v})")
        if not s.case.fetch and w.get("inline_size") != s.inline:
            bad.add(f"rdmabench inline_size={w.get('inline_size')}")
        if w.get("warmup") != s.warmup:
            bad.add(f"rdmabench warmup={w.get('warmup')} (asked {s.warmup})")
    return bad


def build_plan(args):
    by_name = {c.name: c for c in CASES}
    if args.cases:
        names = args.cases.split(",")
        for n in names:
            if n not in by_name:
                die(f"invalid case '{n}': one of {', '.join(by_name)}")
    else:
        names = list(QUICK_CASES) if args.quick else [c.name for c in CASES]
    plan = []
    for n in names:
        c = by_name[n]
        if args.sizes:
            sizes = args.sizes
        elif args.quick and n in QUICK_CASES:
            sizes = QUICK_CASES[n]
        elif args.all:
            sizes = sorted(set(BW_SIZES if c.mode == "bw" else LAT_SIZES) | set(c.sizes or []))
        else:
            sizes = c.sizes
        if c.single_packet:
            sizes = [x for x in sizes if x <= args.mtu]
        if c.atomic:
            sizes = [x for x in sizes if x == ATOMIC_SIZE]
        if sizes:
            plan.append((c, sizes))
    return plan
