"""The machine a session runs on, and the perftest it compares with (recorded in its document)."""
import os
import platform
import re
import subprocess


def perftest_version():
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "perftest"],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine_cpu_mhz():
    """The "cpu MHz" of /proc/cpuinfo: what perftest converts cycles with (when its own fit
    agrees within 2 %)."""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^cpu MHz\s*:\s*(.*)$", f.read(), re.M)
            return float(m.group(1)) if m else None
    except OSError:
        return None


def machine_info(dev):
    info = {"hostname": platform.node(), "kernel": platform.release(),
            "host": os.environ.get("RDMABENCH_VSPERF_HOST", "")}
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
        m = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
        info["cpu"] = m.group(1) if m else ""
        m = re.search(r"^cpu MHz\s*:\s*(.*)$", text, re.M)
        info["cpu_mhz"] = float(m.group(1)) if m else None
        flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
        info["invariant_tsc"] = bool(flags and "nonstop_tsc" in flags.group(1).split())
    except OSError:
        pass
    info["cpus"] = os.cpu_count()
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            info["clocksource"] = f.read().strip()
    except OSError:
        pass
    info["device"] = dev
    try:
        with open(f"/sys/class/infiniband/{dev}/ports/1/state") as f:
            info["port_state"] = f.read().strip()
    except OSError:
        pass
    return info
