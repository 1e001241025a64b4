"""gridsched from Python: write a scheduling policy, run it on gridsched's
engine, and train learning schedulers in a Gymnasium-style environment.

    import gridsched

    class FCFS(gridsched.Scheduler):
        def schedule(self, view):
            for job in view.waiting:
                if job.processors > view.free:
                    break
                view.start(job)

    result = gridsched.simulate(FCFS(), jobs=500)
    print(result.summary["wait"]["mean"])

The engine is gridsched's Go binary (found through GRIDSCHED_BIN, PATH, or
built with ``go build`` from a checkout); the policy talks to it over the
decision protocol (docs/protocol.md).  Standard library only; pandas is
used when importable, NumPy by the environment when importable.
"""

from .protocol import PROTOCOL, Job, View, Scheduler, Client, ProtocolError, RunEnded, run
from .runner import GridschedError, Result, Session, find_binary, simulate, sweep, read_csv

__version__ = "0.1.0"

__all__ = ["PROTOCOL", "Job", "View", "Scheduler", "Client", "ProtocolError", "RunEnded", "run",
           "GridschedError", "Result", "Session", "find_binary", "simulate", "sweep", "read_csv"]
