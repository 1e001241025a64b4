"""The scheduler's side of gridsched's decision protocol (docs/protocol.md).

gridsched sends one JSON object per line: ``hello``, then a ``decide``
request at every settled instant (with the events since the last one),
then ``end``.  The scheduler answers ``hello`` with ``hello`` and every
``decide`` with one ``decision`` line holding its actions.  This module
keeps what a policy needs -- the waiting queue, the running jobs, the free
processors -- from what the protocol sends; it never re-implements
scheduling state the engine owns.
"""

import json
import sys
import traceback

PROTOCOL = 1

__all__ = ["PROTOCOL", "Job", "View", "Scheduler", "Client", "ProtocolError", "RunEnded", "run"]


class ProtocolError(RuntimeError):
    """gridsched sent something this client does not understand, or the
    conversation ended early."""


class RunEnded(ProtocolError):
    """gridsched ended the run before its end message (gridsched serve: a
    result with the error follows the last decision)."""

    def __init__(self, msg):
        ProtocolError.__init__(self, msg.get("error") or "the run ended")
        self.msg = msg


class Job:
    """A job as the protocol describes it.

    ``id`` is the protocol's handle (0, 1, 2, ... in arrival order);
    ``trace_id`` the workload's job number.  ``estimate`` is the scheduler's
    run-time estimate (the user's request); ``run_time`` the actual run time,
    given only in oracle mode (else None).  ``start`` is set once the job
    runs; ``state`` is "waiting", "running", or how it ended ("completed",
    "killed", "failed", "dropped").
    """

    __slots__ = ("id", "trace_id", "submit", "processors", "estimate", "user",
                 "group", "queue", "partition", "run_time", "start", "end",
                 "state", "alloc", "data")

    def __init__(self, d):
        self.id = d["id"]
        self.trace_id = d.get("trace_id", -1)
        self.submit = d["submit"]
        self.processors = d["processors"]
        self.estimate = d["estimate"]
        self.user = d.get("user", -1)
        self.group = d.get("group", -1)
        self.queue = d.get("queue", -1)
        self.partition = d.get("partition", -1)
        self.run_time = d.get("run_time")
        self.start = None
        self.end = None
        self.state = "waiting"
        self.alloc = None
        self.data = None  # free for the policy's own use

    @property
    def expected_end(self):
        """When a running job is expected to end: start + estimate."""
        return self.start + self.estimate

    def __repr__(self):
        return "Job(id=%d, submit=%g, processors=%d, estimate=%g, state=%s)" % (
            self.id, self.submit, self.processors, self.estimate, self.state)


class View:
    """What a policy sees at a decision: read it, and act through start(),
    reject(), preempt(), kill() and timer().

    ``now`` is the simulated time, ``free`` the idle processors (lowered by
    each start() of this decision), ``processors`` the platform's
    processors, ``nodes`` its nodes.  ``waiting`` is the waiting queue in
    arrival order (a tuple: starting a job while iterating over it is
    safe; read it again for the queue after the start), ``running`` maps id
    to running job.
    """

    def __init__(self):
        self.now = 0.0
        self.free = 0
        self.processors = 0
        self.nodes = 0
        self.platform = {}
        self.options = {}
        self.running = {}
        self._waiting = {}
        self._snapshot = ()
        self._dirty = False
        self._actions = []
        self._wake = None

    @property
    def waiting(self):
        if self._dirty:
            self._snapshot = tuple(self._waiting.values())
            self._dirty = False
        return self._snapshot

    def job(self, job_id):
        """The waiting or running job with this id (None if neither)."""
        j = self._waiting.get(job_id)
        return j if j is not None else self.running.get(job_id)

    def start(self, job, alloc=None):
        """Start a waiting job now: on any free processors (the run's node
        selection, first-fit by default), or on ``alloc``, a list of spans
        [first node, number of nodes, processors on each]."""
        if self._waiting.get(job.id) is not job:
            raise ValueError("start: %r is not waiting" % (job,))
        if job.processors > self.free:
            raise ValueError("start: %r needs %d processors, %d are free" % (job, job.processors, self.free))
        del self._waiting[job.id]
        self._dirty = True
        self.free -= job.processors
        job.state = "running"
        job.start = self.now
        self.running[job.id] = job
        if alloc is None:
            self._actions.append('{"start":%d}' % job.id)
        else:
            job.alloc = [list(s) for s in alloc]
            self._actions.append('{"start":%d,"alloc":%s}' % (job.id, json.dumps(job.alloc, separators=(",", ":"))))

    def reject(self, job):
        """Drop a waiting job: it will never run."""
        if self._waiting.pop(job.id, None) is not job:
            raise ValueError("reject: %r is not waiting" % (job,))
        self._dirty = True
        job.state = "dropped"
        self._actions.append('{"reject":%d}' % job.id)

    def preempt(self, job):
        """Take a running job off its processors; it waits again and will
        restart from the beginning."""
        if self.running.pop(job.id, None) is not job:
            raise ValueError("preempt: %r is not running" % (job,))
        self.free += job.processors
        job.state, job.start = "waiting", None
        self._requeue(job)
        self._actions.append('{"preempt":%d}' % job.id)

    def kill(self, job):
        """Stop a running job for good."""
        if self.running.pop(job.id, None) is not job:
            raise ValueError("kill: %r is not running" % (job,))
        self.free += job.processors
        job.state = "dropped"
        self._actions.append('{"kill":%d}' % job.id)

    def timer(self, at, tag=0):
        """Ask for a decision request at simulated time ``at`` (>= now); it
        comes with a ``timer`` event carrying ``tag``."""
        if at < self.now:
            raise ValueError("timer: %g is before now (%g)" % (at, self.now))
        self._actions.append('{"timer":%s,"tag":%d}' % (json.dumps(float(at)), tag))

    def wake(self, free=None, submit=False, fits=False):
        """Ask for the next decision only when one of these holds (or a
        timer, node event or requeue happens): at least ``free`` processors
        are free; a job was submitted (``submit``); a waiting job fits on the
        free processors (``fits``).  The events in between come with that
        decision.  Without a call, the scheduler's ``wake`` attribute
        applies (None: every settled instant)."""
        w = {}
        if free is not None:
            w["free"] = int(free)
        if submit:
            w["submit"] = True
        if fits:
            w["fits"] = True
        self._wake = w or None

    def _requeue(self, job):
        # A job back in the queue keeps its arrival position.
        w = self._waiting
        later = any(k > job.id for k in w)
        w[job.id] = job
        if later:
            items = sorted(w.items())
            w.clear()
            w.update(items)
        self._dirty = True


class Scheduler:
    """Base class of a policy.  Override schedule(view); the callbacks are
    optional.  Run it as gridsched's external scheduler with run(), or
    in-process with gridsched.simulate(scheduler=...)."""

    #: a name for messages (default: the class name)
    name = None

    #: when to be asked again after a decision (view.wake's arguments as a
    #: dict, e.g. {"fits": True}: only when a waiting job fits on the free
    #: processors); None: at every settled instant
    wake = None

    def on_hello(self, view):
        """Called once, before the first decision: view.platform and
        view.options hold what hello said."""

    def on_submit(self, job, view):
        """A job arrived; it is in view.waiting."""

    def on_end(self, job, view):
        """A running job ended (job.state says how)."""

    def on_event(self, event, view):
        """Any other event (requeue, extend, node_down, node_up, timer), as
        the protocol's dict; for requeue and extend the job is
        view.job(event["id"])."""

    def schedule(self, view):
        """Decide: call view.start(job) and the others.  Called at every
        settled instant."""
        raise NotImplementedError

    def on_finish(self, now):
        """The run is over."""


class Client:
    """The protocol's client: reads gridsched's messages from ``rfile``
    and answers on ``wfile`` (binary files), keeping a View up to date."""

    def __init__(self, rfile, wfile, name="python"):
        self.r = rfile
        self.w = wfile
        self.name = name
        self.view = View()
        self.seq = None
        self.last = []  # the last messages received, for errors

    def read(self):
        line = self.r.readline()
        if not line:
            raise ProtocolError("gridsched closed the connection")
        self.last = (self.last + [line[:300]])[-3:]
        try:
            return json.loads(line)
        except ValueError as e:
            raise ProtocolError("gridsched sent a line that is not JSON (%s): %r" % (e, line[:200]))

    def write(self, s):
        self.w.write(s.encode() if isinstance(s, str) else s)
        self.w.flush()

    def hello(self, msg=None):
        """Answer gridsched's hello (read now unless given)."""
        if msg is None:
            msg = self.read()
        if msg.get("type") == "result":
            raise RunEnded(msg)
        if msg.get("type") != "hello":
            raise ProtocolError("want hello first, got %r" % (msg,))
        if msg.get("protocol") != PROTOCOL:
            raise ProtocolError("gridsched speaks protocol %r; this client speaks %d" % (msg.get("protocol"), PROTOCOL))
        v = self.view
        v.platform = msg["platform"]
        v.options = msg.get("options", {})
        v.processors = v.platform["processors"]
        v.nodes = v.platform["nodes"]
        self.write('{"type":"hello","protocol":%d,"name":%s}\n' % (PROTOCOL, json.dumps(self.name)))
        return msg

    def next(self, scheduler=None):
        """Read the next message and apply its events to the view (calling
        the scheduler's callbacks if given).  Returns the message: a decide
        (answer it with answer()) or end."""
        msg = self.read()
        t = msg.get("type")
        if t == "decide":
            self._events(msg, scheduler)
            return msg
        if t == "end":
            return msg
        if t == "result":
            raise RunEnded(msg)
        raise ProtocolError("unexpected %r message: %r" % (t, msg))

    def _events(self, msg, s):
        v = self.view
        v.now = msg["now"]
        self.seq = msg["seq"]
        waiting, running = v._waiting, v.running
        for ev in msg["events"]:
            t = ev["type"]
            if t == "submit":
                j = Job(ev["job"])
                waiting[j.id] = j
                v._dirty = True
                if s is not None:
                    v.free = msg["free"]
                    s.on_submit(j, v)
            elif t == "end":
                j = running.pop(ev["id"], None)
                if j is None:
                    continue
                j.state = ev["state"]
                j.end = ev.get("time", v.now)
                j.alloc = ev.get("alloc")
                if s is not None:
                    v.free = msg["free"]
                    s.on_end(j, v)
            else:
                if t == "requeue":
                    j = running.pop(ev["id"], None)
                    if j is not None:
                        j.state, j.start = "waiting", None
                        v._requeue(j)
                elif t == "extend":
                    j = running.get(ev["id"])
                    if j is not None:
                        j.estimate = ev["estimate"]
                if s is not None:
                    v.free = msg["free"]
                    s.on_event(ev, v)
        v.free = msg["free"]
        v._actions = []

    def answer(self, wake=None):
        """Send the actions taken on the view since the last decide, with
        the view's wake conditions (else ``wake``, a dict)."""
        v = self.view
        acts = v._actions
        v._actions = []
        w = v._wake or wake
        v._wake = None
        if w:
            self.write('{"type":"decision","seq":%d,"actions":[%s],"wake":%s}\n' % (
                self.seq, ",".join(acts), json.dumps(w, separators=(",", ":"))))
        else:
            self.write('{"type":"decision","seq":%d,"actions":[%s]}\n' % (self.seq, ",".join(acts)))

    def error(self, message):
        """Tell gridsched the scheduler gives up (the run ends with this
        message)."""
        try:
            self.write(json.dumps({"type": "error", "message": message}) + "\n")
        except (OSError, ValueError):
            pass

    def serve(self, scheduler, hello=None):
        """Run a scheduler through one run: hello, decisions, end.  Returns
        the end message."""
        if scheduler.name:
            self.name = scheduler.name
        try:
            self.hello(hello)
            scheduler.on_hello(self.view)
            while True:
                msg = self.next(scheduler)
                if msg["type"] == "end":
                    scheduler.on_finish(msg.get("now"))
                    return msg
                scheduler.schedule(self.view)
                self.answer(scheduler.wake)
        except ProtocolError:
            raise
        except Exception as e:
            self.error("%s: %s" % (type(e).__name__, e))
            raise


def run(scheduler, rfile=None, wfile=None):
    """Run ``scheduler`` as gridsched's external scheduler on this
    process's standard input and output (what ``gridsched simulate --policy
    external --scheduler "python3 my_scheduler.py"`` starts).  An exception
    in the scheduler is sent to gridsched (which ends the run with it) and
    printed on standard error."""
    rfile = rfile or sys.stdin.buffer
    wfile = wfile or sys.stdout.buffer
    name = scheduler.name or type(scheduler).__name__
    c = Client(rfile, wfile, name)
    try:
        c.serve(scheduler)
    except ProtocolError as e:
        print("%s: %s" % (name, e), file=sys.stderr)
        sys.exit(1)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
