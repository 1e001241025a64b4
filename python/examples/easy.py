"""EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001) over
gridsched's decision protocol.

Jobs wait in arrival order and only the first one holds a reservation:
start jobs from the front while they fit; when the first waiting job does
not fit, its shadow time is the earliest expected end (start + estimate) of
the running jobs at which enough processors are free, and its extra
processors are those free then beyond its need; a later job may start now if
it fits and either ends by the shadow time or uses only extra processors.

    gridsched simulate --policy external --scheduler "python3 python/examples/easy.py"

Its schedules are identical, job for job, to the built-in easy.
"""

import os
import sys

try:
    import gridsched
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import gridsched

INF = float("inf")


def shadow(view, need):
    """The earliest expected end of running jobs at which ``need``
    processors are free (never before now), and the processors free then
    beyond ``need``; (inf, 0) if that never happens."""
    avail = view.free
    ends = sorted((j.start + j.estimate, j.processors) for j in view.running.values())
    i, n = 0, len(ends)
    while i < n:
        t = ends[i][0]
        while i < n and ends[i][0] == t:  # every release at t counts at t
            avail += ends[i][1]
            i += 1
        if avail >= need:
            return max(t, view.now), avail - need
    return INF, 0


def backfill(view, order):
    """EASY over the waiting jobs in ``order``: start from the front while
    they fit, then backfill the rest around the first one's reservation."""
    i, n = 0, len(order)
    while i < n and order[i].processors <= view.free:
        view.start(order[i])
        i += 1
    if n - i < 2 or view.free == 0:
        return
    when, extra = shadow(view, order[i].processors)
    now = view.now
    for k in range(i + 1, n):
        j = order[k]
        p = j.processors
        if p > view.free:
            continue
        if now + j.estimate <= when:
            view.start(j)
        elif p <= extra:
            view.start(j)
            extra -= p
        else:
            continue
        if view.free == 0:
            break


class EASY(gridsched.Scheduler):
    name = "easy.py"
    wake = {"fits": True}  # nothing can start unless a waiting job fits: skip those instants

    def schedule(self, view):
        if view.waiting:
            backfill(view, view.waiting)


if __name__ == "__main__":
    gridsched.run(EASY())
