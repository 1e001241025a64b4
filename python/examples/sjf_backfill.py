"""Shortest job first with EASY backfilling, over gridsched's decision
protocol (a policy that is not built in): waiting jobs are ordered by their
estimate (shortest first, ties in arrival order); jobs start in that order
while they fit; the first that does not fit gets a reservation, and the
others may backfill around it as in EASY.

    gridsched simulate --policy external --scheduler "python3 python/examples/sjf_backfill.py"
"""

import os
import sys

try:
    import gridsched
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import gridsched

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from easy import backfill  # noqa: E402  (the EASY pass, on any queue order)


class SJFBackfill(gridsched.Scheduler):
    name = "sjf_backfill.py"
    wake = {"fits": True}  # nothing can start unless a waiting job fits: skip those instants

    def schedule(self, view):
        if view.waiting:
            backfill(view, sorted(view.waiting, key=lambda j: (j.estimate, j.id)))


if __name__ == "__main__":
    gridsched.run(SJFBackfill())
