"""The learning environment against the gridsched binary."""

import random
import unittest

import gridsched
from gridsched import spaces
from gridsched.env import JOB_FEATURES, MACHINE_FEATURES, SchedulingEnv, priority_agent

from support import binary, trace


def play(env, policy, seed=None):
    """One episode; returns (steps, final reward, observations seen)."""
    obs, info = env.reset(seed=seed)
    seen = [list(obs)]
    steps, done, reward = 0, False, None
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(info))
        seen.append(list(obs))
        steps += 1
        done = terminated or truncated
    return steps, reward, seen


class EnvTest(unittest.TestCase):
    def setUp(self):
        binary(self)
        self.session = gridsched.Session()

    def tearDown(self):
        self.session.close()

    def test_first_job_agent_is_fcfs_and_with_backfilling_easy(self):
        """Always picking the first waiting job is FCFS; with backfilling it
        is EASY: the episode's reward equals the built-in policy's on the
        same jobs, exactly (built-in workload and trace windows)."""
        for kw in ({}, {"nodes": 64, "load": 1.1}):
            for bf, base in ((False, "fcfs"), (True, "easy")):
                with self.subTest(options=kw, backfill=bf):
                    env = SchedulingEnv(jobs=300, backfill=bf, session=self.session, **kw)
                    for seed in (1, 2):
                        _, reward, _ = play(env, lambda info: 0, seed=seed)
                        self.assertEqual(reward, env.baseline(base))

    def test_trace_windows(self):
        path = trace(self, "lublin_256.swf")
        env = SchedulingEnv(workload=path, jobs=128, queue=32, backfill=True, session=self.session)
        starts = set()
        for seed in range(4):
            _, reward, _ = play(env, lambda info: 0, seed=seed)
            self.assertEqual(reward, env.baseline("easy"))
            starts.add(env.config["window"]["start"])
        self.assertEqual(len(starts), 4, "four seeds, four windows")
        self.assertEqual(env.processors, 256)

    def test_random_agent_and_spaces(self):
        env = SchedulingEnv(jobs=200, queue=16, session=self.session)
        rng = random.Random(5)
        obs, info = env.reset(seed=7)
        self.assertEqual(len(obs), 16 * len(JOB_FEATURES) + len(MACHINE_FEATURES))
        self.assertEqual(env.action_space.n, 16)
        done, steps = False, 0
        while not done:
            mask = list(info["action_mask"])
            self.assertEqual(sum(mask), min(info["waiting"], 16))
            self.assertTrue(all(0.0 <= x <= 1.0 for x in obs))
            valid = [i for i, m in enumerate(mask) if m]
            obs, reward, terminated, truncated, info = env.step(rng.choice(valid))
            self.assertFalse(info["invalid_action"])
            steps += 1
            done = terminated or truncated
        self.assertEqual(steps, 200)  # each job picked once
        self.assertLess(reward, 0)
        self.assertEqual(info["summary"]["completed"], 200)
        with self.assertRaisesRegex(RuntimeError, "reset"):
            env.step(0)

    def test_reset_with_a_seed_repeats_the_episode(self):
        a = SchedulingEnv(jobs=150, session=self.session)
        pick = lambda info: sum(info["action_mask"]) - 1  # the last visible job
        ra = play(a, pick, seed=11)
        rb = play(a, pick, seed=11)
        self.assertEqual(ra, rb)
        rc = play(a, pick, seed=12)
        self.assertNotEqual(ra[1], rc[1])

    def test_rewards_and_invalid_actions(self):
        env = SchedulingEnv(jobs=100, reward="utilization", session=self.session)
        obs, info = env.reset(seed=3)
        obs, r, term, trunc, info = env.step(99)
        self.assertTrue(info["invalid_action"])
        while not term:
            obs, r, term, trunc, info = env.step(0)
        self.assertEqual(r, info["summary"]["utilization"])
        self.assertGreater(r, 0)
        wait = SchedulingEnv(jobs=100, reward="wait", session=self.session)
        _, r, _ = play(wait, lambda info: 0, seed=3)
        self.assertEqual(r, -wait.summary["wait"]["mean"])
        with self.assertRaisesRegex(ValueError, "reward"):
            SchedulingEnv(reward="speed", session=self.session)

    def test_baselines_run_what_is_registered(self):
        env = SchedulingEnv(jobs=100, session=self.session)
        play(env, lambda info: 0, seed=1)
        got, missing = env.baselines(("fcfs", "easy", "no-such-policy"))
        self.assertEqual(sorted(got), ["easy", "fcfs"])
        self.assertEqual(missing, ["no-such-policy"])
        self.assertGreater(got["easy"], got["fcfs"])  # EASY waits less than FCFS here

    def test_priority_agents(self):
        """The heuristics as agents: FCFS's is the built-in fcfs exactly;
        SJF's picks the shortest visible job."""
        env = SchedulingEnv(jobs=200, session=self.session)
        _, reward, _ = play(env, priority_agent(env, "fcfs"), seed=4)
        self.assertEqual(reward, env.baseline("fcfs"))
        obs, info = env.reset(seed=4)
        act = priority_agent(env, "sjf")
        while True:
            vis = env._client.view.waiting[:env.K]
            a = act(info)
            self.assertEqual(vis[a].estimate, min(j.estimate for j in vis))
            obs, r, term, trunc, info = env.step(a)
            if term:
                break
        for name in ("wfp3", "unicep", "f1"):
            _, r, _ = play(env, priority_agent(env, name), seed=4)
            self.assertLess(r, 0)

    def test_reset_mid_episode(self):
        env = SchedulingEnv(jobs=100, session=self.session)
        env.reset(seed=1)
        env.step(0)
        env.reset(seed=1)  # abandons the first episode
        _, reward, _ = play(env, lambda info: 0, seed=1)
        self.assertEqual(reward, env.baseline("fcfs"))


FAKE_GYMNASIUM = {
    "gymnasium/__init__.py": "from . import spaces\nclass Env:\n    def reset(self, seed=None, options=None):\n        self.seeded = seed\n",
    "gymnasium/spaces.py": "class Box:\n    def __init__(self, low, high, shape, dtype):\n        self.shape = shape\n"
                           "class Discrete:\n    def __init__(self, n):\n        self.n = n\n    def seed(self, s):\n        pass\n",
}


class GymnasiumTest(unittest.TestCase):
    def test_subclasses_gymnasium_env_when_importable(self):
        """With a gymnasium importable (a stand-in here: Debian has none),
        the environment is a gymnasium.Env with gymnasium's spaces."""
        import os
        import subprocess
        import sys
        import tempfile
        from support import PYTHON
        binary(self)
        with tempfile.TemporaryDirectory() as d:
            for name, text in FAKE_GYMNASIUM.items():
                os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            code = ("import gymnasium, gridsched.env as e\n"
                    "env = e.SchedulingEnv(jobs=50, queue=8)\n"
                    "assert isinstance(env, gymnasium.Env) and isinstance(env.observation_space, gymnasium.spaces.Box)\n"
                    "assert isinstance(env.action_space, gymnasium.spaces.Discrete) and env.action_space.n == 8\n"
                    "obs, info = env.reset(seed=5)\n"
                    "assert env.seeded == 5\n"
                    "done = False\n"
                    "while not done:\n"
                    "    obs, r, t, tr, info = env.step(0); done = t\n"
                    "print(r == env.baseline('fcfs'))\n")
            r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=d + os.pathsep + PYTHON),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "True\n"), r.stderr)


class SpacesTest(unittest.TestCase):
    def test_fallback_spaces(self):
        d = spaces.Discrete(4, seed=1)
        self.assertTrue(d.contains(3))
        self.assertFalse(d.contains(4))
        self.assertEqual({d.sample([0, 1, 0, 0]) for _ in range(20)}, {1})
        with self.assertRaises(ValueError):
            d.sample([0, 0, 0, 0])
        b = spaces.Box(0, 1, (3,), seed=2)
        self.assertTrue(b.contains(b.sample()))
        self.assertFalse(b.contains([0, 2, 0]))


if __name__ == "__main__":
    unittest.main()
