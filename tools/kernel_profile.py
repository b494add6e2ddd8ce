#!/usr/bin/env python3
"""Sums an Nsight Compute CSV (ncu --csv --metrics gpu__time_duration.sum) by kernel.

    kernel_profile.py TITLE FILE.csv [STEPS]

Prints one line per kernel name, the longest total first: launches, total and
mean time, and the share of all kernel time; with STEPS, the kernel time and
launches per step. The GPU's busy time per step beside the step's wall time
says whether a step waits on the device or on the host.
"""
import csv
import re
import sys
from collections import defaultdict


def short_name(name):
    """The kernel's function name without its template arguments and parameters;
    for a kernel running a lambda, the function that wrote the lambda in <>."""
    name = name.replace("(anonymous namespace)", "anon")
    at = name.find("lambda")
    enclosing = re.findall(r"([A-Za-z_][\w:]*)\(", name[:at]) if at > 0 else []
    kernel = plain_name(name)
    return f"{kernel}<{enclosing[-1].split('::')[-1]}>" if enclosing else kernel


def plain_name(name):
    name = re.sub(r"\(.*$", "", name.replace("(anonymous namespace)", "anon"))
    depth, kept = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    text = "".join(kept).strip()
    return text.split(" ")[-1] if text else name


def rows(path):
    with open(path, newline="") as f:
        # ncu prints its own "==PROF==" lines before the table.
        lines = [line for line in f if line.startswith('"')]
    return csv.DictReader(lines)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    title, path = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    total_ns, launches = defaultdict(float), defaultdict(int)
    for row in rows(path):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        scale = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}.get(row.get("Metric Unit", "ns"), 1)
        name = short_name(row["Kernel Name"])
        total_ns[name] += value * scale
        launches[name] += 1
    all_ns, all_launches = sum(total_ns.values()), sum(launches.values())
    print(f"{title}: {all_launches} kernel launches, {all_ns / 1e3:.1f} us of kernel time")
    if steps and all_launches:
        print(f"  per step ({steps} steps): {all_ns / 1e3 / steps:.1f} us, {all_launches / steps:.1f} launches")
    print(f"  {'kernel':<60} {'launches':>8} {'total us':>10} {'mean us':>9} {'share':>6}")
    for name in sorted(total_ns, key=total_ns.get, reverse=True)[:24]:
        share = total_ns[name] / all_ns if all_ns else 0
        print(f"  {name[:60]:<60} {launches[name]:>8} {total_ns[name] / 1e3:>10.1f} "
              f"{total_ns[name] / 1e3 / launches[name]:>9.2f} {share:>6.1%}")


if __name__ == "__main__":
    main()
