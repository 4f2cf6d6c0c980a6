"""rdmabench against perftest on one RDMA device (the package behind bench/vs-perftest).

Modules, from the bottom up:
  common    constants (result format, KiB/MiB), log/die, size_text, atomic JSON writes
  stats     medians and their order-statistics intervals, ratio blocks, verdicts, ICC, summaries
  report    the tables and summary lines printed
  pool      --pool: several sessions pooled with the session as the unit
  perftest  perftest's output parsed (its latency summary recomputed after a warm-up), and
            converted into rdmabench result documents
  cases     the compared workloads (cases, sizes, iterations; --long) and what both tools get
  proc      child processes (peak RSS, context switches), listening TCP ports
  pinning   the tools' processes pinned to --pin's CPUs: affinity, or taskset -c with --long
  machine   the machine, perftest's version
  runner    one rdmabench or perftest run, with retries
  sections  the comparison, thread scaling and memory sections of a session
  session   one session: its document, saved after every point and at the end with the summary
  command   the command line (bench/vs-perftest)
"""
