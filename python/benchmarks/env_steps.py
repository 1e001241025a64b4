"""Steps per second of the learning environment with a trivial agent
(always the first visible job), for BENCHMARKS.md.

    taskset -c 0 python3 python/benchmarks/env_steps.py [STEPS] [--backfill]

Pinned to one core, Python and gridsched serve share it (the round trips
are then context switches on one core).  Prints the wall-clock rate and
each process's CPU time per step (from /proc)."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gridsched.env import SchedulingEnv  # noqa: E402


def cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    steps_wanted = int(args[0]) if args else 100000
    backfill = "--backfill" in sys.argv
    env = SchedulingEnv(jobs=256, queue=128, backfill=backfill)
    env.reset(seed=0)  # starts gridsched serve; not timed
    pid = env.session.proc.pid
    g0, p0, w0 = cpu(pid), time.process_time(), time.perf_counter()
    steps = episodes = 0
    while steps < steps_wanted:
        obs, info = env.reset()
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(0)
            steps += 1
            done = terminated or truncated
        episodes += 1
    wall = time.perf_counter() - w0
    py, go = time.process_time() - p0, cpu(pid) - g0
    env.close()
    print("steps %d (%d episodes of 256 jobs, K=128, backfill %s): %.0f steps/s wall; CPU per step: python %.1f µs, gridsched %.1f µs"
          % (steps, episodes, backfill, steps / wall, py / steps * 1e6, go / steps * 1e6))


if __name__ == "__main__":
    main()
