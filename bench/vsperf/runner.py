"""Runs of the two tools: rdmabench clients against a long-lived rdmabench server, perftest
server + client pairs on fresh ports; failed runs retried, counted and listed."""
import json
import os
import re
import signal
import time

from .common import die, log
from .perftest import CPU_MHZ_FAILURE, parse_perftest, perftest_header
from .pinning import pinned
from .proc import Proc, tcp_listening, vm_hwm_kib


class Runner:
    def __init__(self, args):
        self.args = args
        self.dev = os.environ["RDMABENCH_TEST_DEVICE"]
        self.addr = os.environ["RDMABENCH_TEST_ADDR"]
        self.gid = os.environ["RDMABENCH_TEST_GID_INDEX"]
        self.bin = args.rdmabench
        self.out = args.out
        self.logs = os.path.join(self.out, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.seq = 0
        self.next_port = args.perftest_port
        self.retries = {"perftest_cpu_mhz": 0, "perftest_other": 0, "rdmabench": 0}
        self.failures = []
        self.servers = {}  # rdmabench binary -> (Proc, port)
        # --pin: clients on one CPU, servers on another (None: wherever the scheduler likes)
        self.client_cpus = {args.pin[0]} if args.pin else None
        self.server_cpus = {args.pin[1]} if args.pin else None
        self.taskset = bool(getattr(args, "long", False))  # pin with `taskset -c` (pinning.py)

    # rdmabench --------------------------------------------------------------------------
    def start_server(self, binary):
        prefix = os.path.join(self.logs, f"rdmabench-server-{len(self.servers)}")
        cmd, cpus = pinned([binary, "server", "-d", self.dev, "-x", self.gid, "--bind", self.addr,
                            "-p", "0"], self.server_cpus, self.taskset)
        server = Proc(cmd, prefix, cpus)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            out, _ = server.output()
            m = re.search(r"^RDMABENCH_SERVER_READY (\{.*\})$", out, re.M)
            if m:
                self.servers[binary] = (server, json.loads(m.group(1))["port"])
                return
            if server.poll() is not None:
                break
            time.sleep(0.1)
        out, err = server.output()
        server.kill()
        die(f"the rdmabench server {binary} did not start:\n{out}\n{err}", 1)

    def stop_servers(self):
        """Stops the servers; returns the peak RSS (VmHWM, KiB) of the first one."""
        hwm = None
        for i, (server, _) in enumerate(self.servers.values()):
            if i == 0:
                hwm = vm_hwm_kib(server.p.pid)
            server.p.send_signal(signal.SIGTERM)
            if server.wait(30) is None:
                log("vs-perftest: an rdmabench server did not stop on SIGTERM; killed")
        self.servers = {}
        return hwm

    def log_prefix(self, tag):
        self.seq += 1
        return os.path.join(self.logs, f"{self.seq:05d}-{tag}")

    def rdmabench(self, tag, wargs, timeout=600, binary=None, cpus="pin"):
        """One rdmabench client run; returns (result document, usage (peak RSS, context switches), seconds, command)."""
        binary = binary or self.bin
        if binary not in self.servers:
            self.start_server(binary)
        prefix = self.log_prefix(("baseline-" if binary != self.bin else "rdmabench-") + tag)
        doc_path = prefix + ".json"
        cmd, cpus = pinned([binary, "client", self.addr, "-p", str(self.servers[binary][1]),
                            "-d", self.dev, "-x", self.gid, "--timeout", "30", "--json",
                            doc_path] + wargs, self.client_cpus if cpus == "pin" else cpus,
                           self.taskset)
        for attempt in range(self.args.retries + 1):
            t0 = time.monotonic()
            p = Proc(cmd, prefix, cpus)
            status = p.wait(timeout)
            took = time.monotonic() - t0
            doc = None
            if status == 0 and os.path.exists(doc_path):
                with open(doc_path) as f:
                    doc = json.load(f)
                if doc.get("error") is None and all(r.get("error") is None for r in doc["results"]):
                    if self.args.fresh_server:
                        self.stop_servers()
                    return doc, p.usage(), took, cmd
            out, err = p.output()
            why = "timed out" if status is None else f"exit {status}"
            self.note_failure("rdmabench", tag, why, err)
            if attempt < self.args.retries:
                self.retries["rdmabench"] += 1
        return None, None, None, cmd

    # perftest ---------------------------------------------------------------------------
    def port(self):
        p = self.next_port
        self.next_port = self.args.perftest_port + (self.next_port + 1 - self.args.perftest_port) % 200
        return p

    def perftest(self, tag, settings_or_args, mode, timeout=600, extra_clients=0, warmup=0):
        """One perftest server + client; returns (parsed result, banner settings, usage, seconds,
        command). `warmup`: latency samples to drop (parse_perftest)."""
        for attempt in range(self.args.retries + 1):
            port = self.port()
            base = settings_or_args(port)
            prefix = self.log_prefix("perftest-" + tag)
            t0 = time.monotonic()
            scmd, scpus = pinned(base, self.server_cpus, self.taskset)
            server = Proc(scmd, prefix + "-server", scpus)
            deadline = time.monotonic() + 120
            while not tcp_listening(port) and server.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if not tcp_listening(port):
                server.kill()
                self.note_failure("perftest", tag, "server did not listen", server.output()[1])
                self.retries["perftest_other"] += attempt < self.args.retries
                continue
            ccmd, ccpus = pinned(base + [self.addr], self.client_cpus, self.taskset)
            client = Proc(ccmd, prefix + "-client", ccpus)
            cstatus = client.wait(timeout)
            sstatus = server.wait(60 if cstatus is not None else 1)
            took = time.monotonic() - t0
            out, err = client.output()
            if cstatus == 0:
                try:
                    return parse_perftest(out, mode, warmup), perftest_header(out), \
                        client.usage(), took, ccmd
                except ValueError as e:
                    err += f"\n(vs-perftest: {e})"
            sout, serr = server.output()
            why = "timed out" if cstatus is None else f"exit {cstatus}"
            if CPU_MHZ_FAILURE.search(out + err):
                self.note_failure("perftest", tag, why + " (CPU frequency fit)", err)
                if attempt < self.args.retries:
                    self.retries["perftest_cpu_mhz"] += 1
            else:
                self.note_failure("perftest", tag, why, err + serr)
                if attempt < self.args.retries:
                    self.retries["perftest_other"] += 1
            del sstatus
        return None, None, None, None, None

    def note_failure(self, tool, tag, why, err):
        tail = " | ".join(err.strip().splitlines()[-3:])
        self.failures.append({"tool": tool, "run": tag, "why": why, "stderr_tail": tail})
        log(f"vs-perftest: {tool} {tag}: {why}: {tail}")
