"""How the tools' processes are pinned to the CPUs of --pin (clients on one, servers on another).

By default the child sets its CPU affinity itself before it executes the tool. With --long the
command starts with `taskset -c CPU` instead, so that every recorded command shows, and re-runs
with, its pinning. Either way both tools are pinned the same way, the whole process: perftest has
no option for it, so rdmabench's own --cpus (which pins its worker threads) is not used."""

TASKSET = "taskset"


def pinned(cmd, cpus, taskset):
    """(command, CPUs for the child to set its affinity to): with `taskset` the command under
    `taskset -c CPUS` and nothing left to set; else the command as it is, with `cpus`. No CPUs
    (None: unpinned) leaves the command as it is either way."""
    if taskset and cpus:
        return [TASKSET, "-c", ",".join(str(c) for c in sorted(cpus))] + cmd, None
    return cmd, cpus
