"""One session of vs-perftest: its document (machine, settings, every point), written after
every point, so that an interrupted run keeps what it measured, and at the end complete, with the
summary it prints."""
import time

from .common import FORMAT, FORMAT_VERSION, write_json
from .machine import machine_info, perftest_version
from .sections import run_cases, run_memory, run_threads
from .stats import ratio_summary, usage_summary


def run_session(args, runner, plan, now, json_path, argv):
    """Runs `plan` ([(case, sizes)]) and the sections `args` asks for with `runner`; writes the
    document to `json_path` (atomically) after every point with "partial": true, and at the end
    complete with its "summary"; returns that document."""
    t0 = time.monotonic()
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION,
           "date": now.isoformat(timespec="seconds"), "machine": machine_info(runner.dev),
           "perftest_version": perftest_version(),
           "compared_with": ("rdmabench " + args.baseline) if args.baseline else "perftest",
           "settings": {"pairs": args.pairs, "iters_scale": args.iters_scale, "mtu": args.mtu,
                        "retries": args.retries, "quick": args.quick, "long": args.long,
                        "pin": args.pin,
                        "order": args.order,
                        "tolerance": args.tolerance},
           "argv": argv}

    def save(rows):  # after every point, so an interrupted run keeps what it measured
        write_json(json_path, dict(doc, rows=rows, partial=True, retries=runner.retries,
                                   failures=runner.failures))
    try:
        doc["rows"] = run_cases(runner, args, plan, save)
        if args.threads:
            doc["threads"] = run_threads(runner, args)
        if args.memory:
            doc["memory"] = run_memory(runner, args)
    finally:
        doc["rdmabench_server_vm_hwm_kib"] = runner.stop_servers()
    doc["retries"] = runner.retries
    doc["failures"] = runner.failures
    doc["seconds"] = time.monotonic() - t0
    doc["client_usage"] = usage_summary(doc["rows"])
    doc["summary"] = ratio_summary(doc["rows"])
    doc["partial"] = False
    write_json(json_path, doc)
    return doc
