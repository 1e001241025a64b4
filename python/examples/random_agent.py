"""The skeleton of a training loop on gridsched's learning environment: a
random agent (among the valid actions) and the heuristics, on the same
episodes.  No deep-learning library is needed; put your agent where
choose() is and learn from (obs, reward).

    python3 python/examples/random_agent.py [EPISODES]
"""

import os
import random
import sys

try:
    import gridsched  # noqa: F401
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from gridsched.env import SchedulingEnv, priority_agent


def main(episodes):
    env = SchedulingEnv(jobs=256, queue=32)  # the built-in workload; workload="trace.swf" for windows of a trace
    rng = random.Random(0)

    def choose(obs, info):
        return rng.choice([i for i, ok in enumerate(info["action_mask"]) if ok])

    for episode in range(episodes):
        obs, info = env.reset(seed=episode)
        done, total = False, 0.0
        while not done:
            obs, reward, terminated, truncated, info = env.step(choose(obs, info))
            total += reward  # 0 until the end: minus the mean bounded slowdown
            done = terminated or truncated
        builtin, missing = env.baselines(("fcfs", "sjf", "easy"))  # built-in policies, same jobs
        obs, info = env.reset(seed=episode)  # the same episode again, SJF as the agent
        sjf, done = priority_agent(env, "sjf"), False
        while not done:
            obs, reward, terminated, truncated, info = env.step(sjf(info))
            done = terminated or truncated
        print("episode %d: random agent %.1f, SJF agent %.1f; built-in %s" % (
            episode, total, reward, ", ".join("%s %.1f" % kv for kv in sorted(builtin.items()))))
    env.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
