#!/usr/bin/env python3
"""Times commands side by side: wall time, CPU time and peak memory, median of N rounds.

Each round runs every command once, in turn, so that a busy moment of this shared machine
falls on all of them alike; the ratios are taken per round and their median reported. The
order turns by one each round (round 2 starts with the second command), so that no command
always runs first or after the same one: give as many rounds as commands, or a multiple.
Peak memory is the largest resident set of the command or any process it waited for
(wait4's ru_maxrss), so a shell loop over many processes reports its largest one. It has a
floor of about 15 MiB: until the child starts the command it is counted with this
process's own memory.

    python3 bench/measure.py --runs 5 --base floor --base kondition \\
        'floor=target/release/examples/parse_floor tree FILES...' \\
        'kondition=target/release/kondition generate --out /tmp/x FILES...'

Every command is run through `bash -c`. A command that fails stops the measurement.
Prints a Markdown table; `--tsv FILE` also writes one row per command and round.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def run_once(command):
    """Runs one command; returns (wall seconds, CPU seconds, peak KiB)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        ["bash", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"measure: `{command}` exited with {code}:\n{stderr}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured rounds first")
    parser.add_argument(
        "--base",
        action="append",
        help="a label the ratios are taken against (repeat for more tables; default: the first)",
    )
    parser.add_argument("--tsv", help="also write every measurement to this file")
    parser.add_argument("commands", nargs="+", help="LABEL=COMMAND")
    args = parser.parse_args()

    commands = []
    for item in args.commands:
        label, sep, command = item.partition("=")
        if not sep or not label:
            sys.exit(f"measure: `{item}` is not LABEL=COMMAND")
        commands.append((label, command))
    labels = [label for label, _ in commands]
    bases = args.base or [labels[0]]
    for base in bases:
        if base not in labels:
            sys.exit(f"measure: --base {base} is not one of {', '.join(labels)}")

    for _ in range(args.warmup):
        for _, command in commands:
            run_once(command)
    rounds = []
    for i in range(args.runs):
        turn = i % len(commands)
        order = commands[turn:] + commands[:turn]
        rounds.append({label: run_once(command) for label, command in order})

    if args.tsv:
        with open(args.tsv, "w") as out:
            out.write("round\tlabel\twall_s\tcpu_s\tpeak_kib\n")
            for i, measured in enumerate(rounds):
                for label, (wall, cpu, peak) in measured.items():
                    out.write(f"{i}\t{label}\t{wall:.4f}\t{cpu:.4f}\t{peak}\n")

    for base in bases:
        print(f"median of {args.runs} rounds; ratios per round against `{base}`, then their median\n")
        print("| | wall | CPU | peak memory | wall ratio | CPU ratio | memory ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for label in labels:
            wall = statistics.median(r[label][0] for r in rounds)
            cpu = statistics.median(r[label][1] for r in rounds)
            peak = statistics.median(r[label][2] for r in rounds)
            ratios = [
                statistics.median(r[label][k] / r[base][k] for r in rounds) for k in range(3)
            ]
            print(
                f"| {label} | {wall:.3f} s | {cpu:.3f} s | {peak / 1024:.1f} MiB"
                f" | {ratios[0]:.2f}x | {ratios[1]:.2f}x | {ratios[2]:.2f}x |"
            )
        print()

if __name__ == "__main__":
    main()
