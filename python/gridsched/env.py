"""A Gymnasium-style environment for learning schedulers, over gridsched's
engine.

The formulation is the one the field's most used environment (RLScheduler's
SchedGym) uses: at each step the agent picks one of the first K waiting jobs;
the picked job starts as soon as it fits (time moves on until it does, the
other jobs starting around it by EASY backfilling if ``backfill`` is set),
and the agent is asked again whenever jobs wait and none is picked.  An
episode is a window of N consecutive jobs of a trace, or N jobs of the
built-in workload model, drawn with the episode's seed; it ends when every
job has run.

    from gridsched.env import SchedulingEnv

    env = SchedulingEnv()                       # the built-in workload
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

Observation: K rows of ``JOB_FEATURES`` (present, wait, estimate,
processors, fits now; times divided by ``time_scale`` and clipped to 1,
processors by the platform's), then ``MACHINE_FEATURES`` (free processors,
waiting jobs / K, both clipped to 1): a flat vector in [0, 1] (a NumPy
float32 array when NumPy is importable, else a list).  Action: an index
into the visible jobs; ``info["action_mask"]`` flags the valid ones (an
invalid index picks the first job and sets ``info["invalid_action"]``).
Reward: 0, and at the episode's end minus the mean bounded slowdown of its
jobs (``reward="bsld"``), minus their mean wait (``"wait"``), or the
utilization (``"utilization"``), as gridsched's summary computes them.

The environment subclasses ``gymnasium.Env`` and uses ``gymnasium.spaces``
when gymnasium is importable, and otherwise provides the same interface
with the small spaces of ``gridsched.spaces``.  ``baseline(name)`` runs a
built-in policy on the current episode's jobs for comparison.
"""

import math
import random

from .protocol import Client, RunEnded
from .runner import GridschedError, Session, find_binary

try:
    import numpy as _np
except ImportError:  # NumPy is optional
    _np = None

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
    _Base = _gym.Env
except ImportError:  # gymnasium is optional
    _gym = None
    from . import spaces as _spaces
    _Base = object

__all__ = ["SchedulingEnv", "BASELINES", "PRIORITIES", "priority_agent", "JOB_FEATURES", "MACHINE_FEATURES"]

#: the heuristic baselines, as built-in policy names; baselines() runs
#: those this gridsched registers (the catalogue grows: add names here)
BASELINES = ("fcfs", "sjf", "wfp3", "unicep", "f1", "easy")

JOB_FEATURES = ("present", "wait", "estimate", "processors", "fits")
MACHINE_FEATURES = ("free", "waiting")

REWARDS = ("bsld", "wait", "utilization")


def _lg(x):
    return math.log10(x if x > 0 else 0.1)


#: the heuristics' priorities as functions of (job, now), smallest first:
#: the keys of gridsched's catalogue (docs/policies.md), for agents that
#: follow a heuristic under the environment's rules (priority_agent)
PRIORITIES = {
    "fcfs": lambda j, now: j.id,
    "sjf": lambda j, now: j.estimate,
    "wfp3": lambda j, now: -((now - j.submit) / j.estimate) ** 3 * j.processors,
    "unicep": lambda j, now: -(now - j.submit) / (math.log2(max(j.processors, 2)) * j.estimate),
    "f1": lambda j, now: _lg(j.estimate) * j.processors + 870 * _lg(j.submit),
}


def priority_agent(env, name):
    """An agent that picks the visible job of smallest PRIORITIES[name]
    (ties: earliest arrival): a heuristic run under the environment's rules
    (a picked job is started before any other).  The built-in policy of the
    same name (baseline()) re-sorts the queue at every instant instead, so
    a later, higher-priority job can overtake a waiting one."""
    key = PRIORITIES[name]

    def act(info):
        v = env._client.view
        vis = v.waiting[:env.K]
        now = v.now
        return min(range(len(vis)), key=lambda i: (key(vis[i], now), vis[i].id))
    return act


def _reward(kind, summary):
    if kind == "bsld":
        return -summary["bounded_slowdown"]["mean"]
    if kind == "wait":
        return -summary["wait"]["mean"]
    return summary["utilization"]


class SchedulingEnv(_Base):
    """See the module's documentation.

    ``workload``: a trace (SWF, or gridsched's CSV/JSONL), or None for the
    built-in workload model (``load`` offered load on ``nodes``
    single-processor nodes, default 128); ``jobs``: jobs per episode (N);
    ``queue``: visible jobs (K); ``backfill``: start other jobs around the
    picked one by EASY backfilling while it waits; ``reward``: "bsld",
    "wait" or "utilization"; ``time_scale``: seconds that normalise the
    times; ``options``: more of gridsched's run options (estimates,
    overrun, platform, …).
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, workload=None, jobs=256, queue=128, backfill=False, reward="bsld", nodes=None, load=0.9,
                 time_scale=43200.0, seed=None, session=None, binary=None, **options):
        if reward not in REWARDS:
            raise ValueError("reward: want one of %s, got %r" % (", ".join(REWARDS), reward))
        if jobs < 1 or queue < 1:
            raise ValueError("jobs and queue must be at least 1")
        self.workload = workload
        self.jobs = int(jobs)
        self.K = int(queue)
        self.backfill = bool(backfill)
        self.reward_kind = reward
        self.time_scale = float(time_scale)
        self._own = session is None
        self.session = session or Session(binary or find_binary())
        self._base = dict(options)
        if nodes is not None:
            self._base["nodes"] = int(nodes)
        self._rng = random.Random(seed)
        if workload is None:
            self._base.setdefault("load", load)
            self._total = None
            self.processors = self._base.get("nodes", 128)
        else:
            self._base["workload"] = str(workload)
            self.session._send({"type": "workload", "config": self._base})
            d = self.session._read()
            if "error" in d:
                raise GridschedError(d["error"])
            self._total = d["jobs"]
            self.processors = d.get("processors", 0)
            if self._total < self.jobs:
                raise ValueError("the workload has %d jobs, fewer than %d per episode" % (self._total, self.jobs))
        self.n_features = self.K * len(JOB_FEATURES) + len(MACHINE_FEATURES)
        if _gym is not None:
            self.observation_space = _spaces.Box(0.0, 1.0, shape=(self.n_features,),
                                                 dtype=_np.float32 if _np is not None else float)
            self.action_space = _spaces.Discrete(self.K)
        else:
            self.observation_space = _spaces.Box(0.0, 1.0, (self.n_features,))
            self.action_space = _spaces.Discrete(self.K)
        self._pad = [0.0] * (self.K * len(JOB_FEATURES))
        self._ones = [1.0] * self.K
        self._client = None
        self._pending = None
        self.config = None
        self.summary = None

    # --- episodes ---

    def _episode_config(self):
        c = dict(self._base)
        c["policy"] = "external"
        if self._total is None:
            c["jobs"] = self.jobs
            c["seed"] = self._rng.randrange(1, 2 ** 62)
        else:
            c["window"] = {"start": self._rng.randrange(0, self._total - self.jobs + 1), "jobs": self.jobs}
        return c

    def reset(self, seed=None, options=None):
        """Start an episode (a new window or workload drawn from the
        environment's random stream; ``seed`` reseeds it).  Returns (obs,
        info)."""
        if _gym is not None:
            super().reset(seed=seed)  # gymnasium's np_random
        if seed is not None:
            self._rng = random.Random(seed)
            self.action_space.seed(seed)
        self._abort()
        self.config = self._episode_config()
        self.summary = None
        self._client = self.session.start(self.config)
        try:
            self._client.hello()
        except RunEnded as e:
            self._client = None
            raise GridschedError(e.msg.get("error", "the run failed"))
        self.processors = self._client.view.processors
        self._pending = None
        self._steps = 0
        if self._advance():
            self._client = None
        return self._obs(), self._info(invalid=False)

    def _abort(self):
        """Give up an episode in progress (gridsched ends the run)."""
        if self._client is None:
            return
        c, self._client = self._client, None
        c.error("episode abandoned by reset")
        try:
            while True:
                m = self.session._read()
                if m.get("type") == "result":
                    break
        except GridschedError:
            pass

    def close(self):
        self._abort()
        if self._own and self.session is not None:
            self.session.close()
            self.session = None

    # --- steps ---

    def step(self, action):
        """Pick visible job ``action``.  Returns (obs, reward, terminated,
        truncated, info)."""
        if self._client is None:
            raise RuntimeError("step: call reset() first (the episode is over)")
        view = self._client.view
        waiting = view.waiting
        invalid = False
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if not 0 <= a < min(len(waiting), self.K):
            a, invalid = 0, True
        job = waiting[a]
        self._steps += 1
        if job.processors <= view.free:
            view.start(job)
            if view.waiting:
                return self._obs(), 0.0, False, False, self._info(invalid)
        else:
            self._pending = job
            if self.backfill:
                self._backfill(view)
        self._answer()
        if self._advance():
            self._client = None
            return self._obs(), _reward(self.reward_kind, self.summary), True, False, self._info(invalid)
        return self._obs(), 0.0, False, False, self._info(invalid)

    def _advance(self):
        """Answer decisions until the agent has a choice to make (jobs wait
        and none is picked): False; or until the run ends: True."""
        c = self._client
        view = c.view
        while True:
            msg = c.next()
            if msg["type"] == "end":
                self.summary = self.session.result()
                return True
            p = self._pending
            if p is not None:
                if p.processors <= view.free:
                    view.start(p)
                    self._pending = None
                elif self.backfill:
                    self._backfill(view)
            if self._pending is None and view.waiting:
                return False
            self._answer()

    def _answer(self):
        """Answer, asking to be woken only when the agent or the picked
        job can act: the picked job fits (or, with backfilling, any waiting
        job does); with nothing picked and nothing waiting, a job
        arrives."""
        p = self._pending
        if p is None:
            w = {"submit": True}
        elif self.backfill:
            w = {"fits": True}
        else:
            w = {"free": p.processors}
        self._client.answer(w)

    def _backfill(self, view):
        """EASY around the picked job: start waiting jobs that fit now and
        either end by its reservation (shadow time) or use only the
        processors it will not need then."""
        p = self._pending
        if view.free == 0:
            return
        avail, need = view.free, p.processors
        shadow, extra = float("inf"), 0
        ends = sorted((j.start + j.estimate, j.processors) for j in view.running.values())
        i, n = 0, len(ends)
        while i < n:
            t = ends[i][0]
            while i < n and ends[i][0] == t:
                avail += ends[i][1]
                i += 1
            if avail >= need:
                shadow, extra = max(t, view.now), avail - need
                break
        now = view.now
        for j in view.waiting:
            if j is p or j.processors > view.free:
                continue
            if now + j.estimate <= shadow:
                view.start(j)
            elif j.processors <= extra:
                view.start(j)
                extra -= j.processors
            else:
                continue
            if view.free == 0:
                break

    # --- observations ---

    def _obs(self):
        c = self._client
        obs = self._pad + [0.0, 0.0]
        if c is not None:
            v = c.view
            now, free = v.now, v.free
            inv = 1.0 / self.time_scale
            total = float(v.processors or 1)
            waiting = v.waiting
            vis = waiting[:self.K]
            n = len(vis)
            if n:
                for j in vis:
                    if j.data is None:  # the job's fixed features, once
                        e = j.estimate * inv
                        j.data = (e if e < 1.0 else 1.0, j.processors / total)
                end = 5 * n
                obs[0:end:5] = self._ones[:n]
                obs[1:end:5] = [w if w < 1.0 else 1.0 for w in [(now - j.submit) * inv for j in vis]]
                obs[2:end:5] = [j.data[0] for j in vis]
                obs[3:end:5] = [j.data[1] for j in vis]
                obs[4:end:5] = [1.0 if j.processors <= free else 0.0 for j in vis]
            q = len(waiting) / self.K
            obs[-2] = free / total
            obs[-1] = q if q < 1.0 else 1.0
        if _np is not None:
            return _np.asarray(obs, dtype=_np.float32)
        return obs

    def _info(self, invalid):
        c = self._client
        n = len(c.view.waiting) if c is not None else 0
        mask = [True] * min(n, self.K) + [False] * (self.K - min(n, self.K))
        info = {"action_mask": _np.array(mask, dtype=_np.int8) if _np is not None else mask,
                "now": c.view.now if c is not None else None, "waiting": n, "invalid_action": invalid,
                "episode": self.config}
        if self.summary is not None:
            info["summary"] = self.summary
        return info

    # --- baselines ---

    def baseline(self, policy):
        """The reward a built-in policy gets on the current episode's jobs
        (the last episode's, once it is over)."""
        if self.config is None:
            raise RuntimeError("baseline: call reset() first")
        if self._client is not None:
            raise RuntimeError("baseline: finish the episode first (the session is running it)")
        c = dict(self.config)
        c["policy"] = policy
        return _reward(self.reward_kind, self.session.run(c))

    def baselines(self, names=BASELINES):
        """``{name: reward}`` for every name this gridsched registers, and
        the list of names it does not."""
        known = set(self.session.policies())
        out, missing = {}, []
        for n in names:
            if n in known:
                out[n] = self.baseline(n)
            else:
                missing.append(n)
        return out, missing
