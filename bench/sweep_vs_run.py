"""plab sweep against the same grid run as one plab run process per cell,
in one invocation so the ratios share the machine's load: runs per second
of each, interleaved over rounds (the best round of each counts).

    /usr/bin/python3 bench/sweep_vs_run.py --plab build/dev/app/plab [--steps 2000] [--rounds 2]

Variants, each over the same 6x6 grid of the default preset
(scaler.init_scale 2^4..2^24 x scaler.growth_interval 10..2000):
  sweep            plab sweep, its table only (one run per core)
  sweep_records    plab sweep --records DIR (every run's records written, as plab run writes them)
  sweep_1_thread   plab sweep --threads 1 (one process, no parallel runs)
  plab_run         36 plab run processes one after another, records to /dev/null"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

INIT_SCALES = ["2^4", "2^8", "2^12", "2^16", "2^20", "2^24"]
INTERVALS = ["10", "50", "200", "500", "1000", "2000"]


def grid_args():
    return ["--grid", "scaler.init_scale=" + ",".join(INIT_SCALES),
            "--grid", "scaler.growth_interval=" + ",".join(INTERVALS)]


def cpu_seconds():
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(commands):
    """Wall seconds, and the CPU seconds the processes used: on a shared
    machine the first says what the others left, the second what the work costs."""
    start, cpu = time.perf_counter(), cpu_seconds()
    for command in commands:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, cpu_seconds() - cpu


def variants(plab, steps, scratch):
    sweep = [plab, "sweep", *grid_args(), "--steps", str(steps), "--quiet"]
    runs = [[plab, "run", "--set", "scaler.init_scale=" + s, "--set", "scaler.growth_interval=" + g,
             "--steps", str(steps), "--quiet"] for s in INIT_SCALES for g in INTERVALS]
    return {
        "sweep": [sweep],
        "sweep_records": [sweep + ["--records", os.path.join(scratch, "records")]],
        "sweep_1_thread": [sweep + ["--threads", "1"]],
        "plab_run": runs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plab", required=True, help="the plab executable")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    runs = len(INIT_SCALES) * len(INTERVALS)
    best = {}
    scratch = tempfile.mkdtemp(prefix="plab_sweep_bench_")
    try:
        for round_index in range(args.rounds):
            for name, commands in variants(args.plab, args.steps, scratch).items():
                seconds, cpu = timed(commands)
                shutil.rmtree(os.path.join(scratch, "records"), ignore_errors=True)
                if name not in best or seconds < best[name][0]:
                    best[name] = (seconds, cpu)
                print(f"round {round_index + 1}/{args.rounds}: {name} {seconds:.2f} s, CPU {cpu:.2f} s",
                      file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{runs} runs of {args.steps} steps (6x6 grid of the default preset), best of {args.rounds} rounds")
    for name, (seconds, cpu) in best.items():
        print(f"  {name:15s} {seconds:7.2f} s  {runs / seconds:6.2f} runs/s  CPU {cpu:6.2f} s "
              f"({cpu / seconds:.2f} cores busy)")
    print(f"  sweep over sequential plab run: {best['plab_run'][0] / best['sweep'][0]:.2f}x the runs/s "
          f"({best['plab_run'][0] / best['sweep_records'][0]:.2f}x with --records)")


if __name__ == "__main__":
    main()
