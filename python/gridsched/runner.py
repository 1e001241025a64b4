"""Running the gridsched binary from Python: simulate(), sweep() and the
Session behind them (one ``gridsched serve`` process, many runs)."""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

from .protocol import Client, ProtocolError, RunEnded, Scheduler

__all__ = ["GridschedError", "Result", "Session", "find_binary", "simulate", "sweep", "read_csv"]

MODULE = "module github.com/gridsched/gridsched"


class GridschedError(RuntimeError):
    """A gridsched run or command failed; the message is gridsched's."""


_binary = None


def _checkouts():
    """Folders that may hold the gridsched source (a go.mod of its
    module): $GRIDSCHED_SOURCE, the checkout this package sits in, and the
    working directory and its parents."""
    seen = []
    cands = []
    if os.environ.get("GRIDSCHED_SOURCE"):
        cands.append(os.environ["GRIDSCHED_SOURCE"])
    cands.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    d = os.getcwd()
    while True:
        cands.append(d)
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    out = []
    for c in cands:
        c = os.path.abspath(c)
        if c in seen:
            continue
        seen.append(c)
        try:
            with open(os.path.join(c, "go.mod")) as f:
                if f.readline().strip() == MODULE:
                    out.append(c)
        except OSError:
            pass
    return out


def find_binary(build=True):
    """The gridsched executable: $GRIDSCHED_BIN, else ``gridsched`` on PATH,
    else built with ``go build`` from a checkout (when a Go toolchain is
    present) into ~/.cache/gridsched.  The error says what was tried."""
    global _binary
    if _binary:
        return _binary
    tried = []
    env = os.environ.get("GRIDSCHED_BIN")
    if env:
        if os.access(env, os.X_OK):
            _binary = env
            return env
        raise GridschedError("GRIDSCHED_BIN=%s is not an executable file" % env)
    tried.append("GRIDSCHED_BIN is not set")
    p = shutil.which("gridsched")
    if p:
        _binary = p
        return p
    tried.append("no gridsched on PATH")
    go = shutil.which("go")
    srcs = _checkouts()
    if not build:
        tried.append("building was not allowed")
    elif not go:
        tried.append("no Go toolchain (go) on PATH to build it")
    elif not srcs:
        tried.append("no gridsched checkout (a go.mod of %s) in $GRIDSCHED_SOURCE, beside this package, or above the working directory" % MODULE.split()[1])
    else:
        cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gridsched")
        os.makedirs(cache, exist_ok=True)
        exe = os.path.join(cache, "gridsched")
        tmp = "%s.%d.tmp" % (exe, os.getpid())
        r = subprocess.run([go, "build", "-o", tmp, "./cmd/gridsched"], cwd=srcs[0],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode == 0:
            os.replace(tmp, exe)
            _binary = exe
            return exe
        tried.append("go build in %s failed:\n%s" % (srcs[0], r.stdout.strip()))
    raise GridschedError("cannot find the gridsched binary: " + "; ".join(tried) +
                         ". Set GRIDSCHED_BIN to a built binary (go build -o gridsched ./cmd/gridsched).")


def _convert(v):
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def read_csv(path, frame=None):
    """A CSV file as a list of dicts (numbers converted), or a pandas
    DataFrame when pandas is importable (frame=None) or asked for
    (frame=True)."""
    if frame is None or frame:
        try:
            import pandas
        except ImportError:
            if frame:
                raise
        else:
            return pandas.read_csv(path)
    with open(path, newline="") as f:
        return [{k: _convert(v) for k, v in row.items()} for row in csv.DictReader(f)]


class Result:
    """A finished simulation: ``summary`` (summary.json as a dict), ``jobs``
    (jobs.csv: a list of dicts or a DataFrame; None without records) and
    ``out`` (the folder of the files, None if they were temporary)."""

    def __init__(self, summary, jobs, out):
        self.summary = summary
        self.jobs = jobs
        self.out = out

    def __repr__(self):
        s = self.summary
        return "Result(policy=%r, jobs=%r, mean_wait=%r)" % (s.get("policy"), s.get("jobs"), (s.get("wait") or {}).get("mean"))


class RunFailed(GridschedError):
    pass


class Session:
    """One ``gridsched serve`` process that runs simulations on request;
    a trace is read once for all runs.  Use as a context manager, or call
    close()."""

    def __init__(self, binary=None):
        self.binary = binary or find_binary()
        self.proc = subprocess.Popen([self.binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.client = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.proc = None

    def _send(self, msg):
        self.proc.stdin.write((json.dumps(msg, separators=(",", ":")) + "\n").encode())
        self.proc.stdin.flush()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.poll()
            raise GridschedError("gridsched serve stopped (exit status %s)" % code)
        return json.loads(line)

    def policies(self):
        """The policy names this gridsched knows."""
        self._send({"type": "policies"})
        return self._read()["names"]

    def start(self, config):
        """Send a run request and return a Client for its decisions (for
        drivers that answer decisions themselves, as the environment
        does); finish with result()."""
        self._send({"type": "run", "config": config})
        self.client = Client(self.proc.stdout, self.proc.stdin, "python")
        return self.client

    def result(self, msg=None):
        """Read the run's result message (or take msg) and return its
        summary; raise GridschedError with gridsched's message if the run
        failed."""
        if msg is None:
            msg = self._read()
        if msg.get("type") != "result":
            raise GridschedError("want a result, got %r" % (msg,))
        if "error" in msg:
            raise RunFailed(msg["error"])
        return msg["summary"]

    def run(self, config, scheduler=None):
        """Run one simulation; with policy external and no scheduler command
        in config, ``scheduler`` (a Scheduler) decides in this process.
        Returns the summary."""
        external = config.get("policy") == "external" and not config.get("scheduler")
        if external and scheduler is None:
            raise ValueError("policy external needs a scheduler (a gridsched.Scheduler) or a scheduler command")
        self._send({"type": "run", "config": config})
        if not external:
            return self.result()
        c = Client(self.proc.stdout, self.proc.stdin, scheduler.name or type(scheduler).__name__)
        try:
            c.serve(scheduler)
        except RunEnded as e:
            return self.result(e.msg)  # gridsched ended the run: its result says why
        except ProtocolError:
            raise
        except Exception:
            # The scheduler raised: gridsched was told; read its result to
            # stay in step, then let the exception through.
            try:
                self._read()
            except GridschedError:
                pass
            raise
        return self.result()


_OPTION_KEYS = ("workload", "jobs", "load", "window", "platform", "nodes", "seed", "overrun", "estimates",
                "skip", "first", "arrival_scale", "max_procs", "keep_cancelled", "clamp_wide", "whole_nodes",
                "node_select", "model_params", "oracle", "deadlock", "timeout")


def simulate(scheduler=None, policy=None, workload=None, records=True, out=None, session=None, binary=None, frame=None, **options):
    """Simulate one workload under one policy and return a Result.

    ``scheduler``: a gridsched.Scheduler (it decides in this process), or a
    command line string (gridsched starts it, as ``--scheduler``); either
    implies policy "external".  ``policy``: a built-in policy name (default
    easy).  ``workload``: an SWF trace or native CSV/JSONL file (default:
    the built-in workload).  Other options are simulate's: jobs, load,
    window={"start": i, "jobs": n}, platform, nodes, seed, overrun,
    estimates, skip, first, arrival_scale, max_procs, keep_cancelled,
    clamp_wide, whole_nodes, node_select, model_params, oracle, deadlock,
    timeout.  With ``records`` the per-job records (jobs.csv) are returned
    too; ``out`` keeps gridsched's files in that folder.
    """
    for k in options:
        if k not in _OPTION_KEYS:
            raise TypeError("simulate: unknown option %r (options: %s)" % (k, ", ".join(_OPTION_KEYS)))
    config = {k: v for k, v in options.items() if v is not None}
    if workload is not None:
        config["workload"] = os.fspath(workload)
    if scheduler is not None:
        if policy not in (None, "external"):
            raise ValueError("simulate: a scheduler means policy external, not %r" % policy)
        config["policy"] = "external"
        if isinstance(scheduler, str):
            config["scheduler"] = scheduler
        elif not isinstance(scheduler, Scheduler):
            raise TypeError("simulate: scheduler must be a gridsched.Scheduler or a command line string")
    elif policy is not None:
        config["policy"] = policy
    tmp = None
    if out is None and records:
        tmp = tempfile.mkdtemp(prefix="gridsched-")
        config["out"] = tmp
    elif out is not None:
        config["out"] = os.path.abspath(os.fspath(out))
    own = session is None
    s = session or Session(binary)
    try:
        summary = s.run(config, scheduler if isinstance(scheduler, Scheduler) else None)
        jobs = read_csv(os.path.join(config["out"], "jobs.csv"), frame) if records else None
    finally:
        if own:
            s.close()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return Result(summary, jobs, None if tmp else config.get("out"))


def sweep(spec, out, label=None, resume=False, workers=None, binary=None, frame=None):
    """Run an experiment spec (a YAML file, or a dict written as one) with
    ``gridsched run`` into folder ``out`` and return a dict with its
    ``runs`` (runs.csv) and ``aggregate`` (aggregate.csv) rows.  A run that
    fails (an external scheduler that crashed, ...) is recorded in the
    store and reported in the GridschedError raised at the end; the others
    are kept, and resume=True retries the failed ones."""
    out = os.path.abspath(os.fspath(out))
    if isinstance(spec, dict):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "spec.yaml")
        with open(path, "w") as f:
            json.dump(spec, f, indent=2)  # JSON is YAML
        spec = path
    args = [binary or find_binary(), "run", os.fspath(spec), "--out", out, "--quiet"]
    if label:
        args += ["--label", label]
    if resume:
        args.append("--resume")
    if workers:
        args += ["--workers", str(workers)]
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise GridschedError("gridsched run failed (exit status %d):\n%s" % (r.returncode, r.stderr.strip()))
    return {"runs": read_csv(os.path.join(out, "runs.csv"), frame),
            "aggregate": read_csv(os.path.join(out, "aggregate.csv"), frame),
            "out": out, "log": r.stdout}
