"""First come, first served over gridsched's decision protocol: start
waiting jobs in arrival order while the first one fits; nothing overtakes.

    gridsched simulate --policy external --scheduler "python3 python/examples/fcfs.py"

Its schedules are identical, job for job, to the built-in fcfs.
"""

import os
import sys

try:
    import gridsched
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import gridsched


class FCFS(gridsched.Scheduler):
    name = "fcfs.py"
    wake = {"fits": True}  # nothing can start unless a waiting job fits: skip those instants

    def schedule(self, view):
        for job in view.waiting:
            if job.processors > view.free:
                break
            view.start(job)


if __name__ == "__main__":
    gridsched.run(FCFS())
