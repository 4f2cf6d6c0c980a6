"""Child processes of vs-perftest: output in files, peak RSS and context switches, killed as a
process group; and whether a TCP port is listened on (a perftest server ready)."""
import os
import shlex
import signal
import subprocess
import time


class Proc:
    """A child process with stdout/stderr in files, waited for with wait4 (peak RSS)."""

    def __init__(self, cmd, log_prefix, cpus=None):
        self.cmd = cmd
        self.out_path = log_prefix + ".out"
        self.err_path = log_prefix + ".err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            out.write("$ " + shlex.join(cmd) + "\n")
            out.flush()
            pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
            self.p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                      start_new_session=True, preexec_fn=pin)
        self.status = None
        self.maxrss_kib = None
        self.csw = (None, None)

    def poll(self):
        if self.status is None:
            # Peak RSS: the kernel's high-water mark of the process's own memory (VmHWM), read
            # while it runs (a zombie has none). Not wait4's ru_maxrss: that also counts the
            # forked copy of this Python process before exec, which is bigger than the tools.
            hwm = vm_hwm_kib(self.p.pid)
            if hwm is not None:
                self.maxrss_kib = max(self.maxrss_kib or 0, hwm)
            pid, status, ru = os.wait4(self.p.pid, os.WNOHANG)
            if pid == self.p.pid:
                self.status = os.waitstatus_to_exitcode(status)
                self.csw = (ru.ru_nvcsw, ru.ru_nivcsw)  # voluntary, involuntary switches
                self.p.returncode = self.status
        return self.status

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                self.kill()
                return None
            time.sleep(0.02)
        return self.status

    def usage(self):
        """Peak RSS and context switches of the (waited-for) process."""
        return {"maxrss_kib": self.maxrss_kib, "voluntary_switches": self.csw[0],
                "involuntary_switches": self.csw[1]}

    def kill(self):
        if self.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            while self.poll() is None:
                time.sleep(0.01)

    def output(self):
        with open(self.out_path) as f:
            out = f.read()
        with open(self.err_path) as f:
            err = f.read()
        return out, err


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def tcp_listening(port):
    """Whether some socket listens on TCP `port` (IPv4 or IPv6), from /proc/net/tcp*."""
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except (OSError, StopIteration):
            pass
    return False
