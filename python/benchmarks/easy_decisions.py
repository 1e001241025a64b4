"""python/examples/easy.py, counting its decision requests (for
BENCHMARKS.md): prints the count and its own CPU time on standard error at
the end.  With --every-instant it asks for every settled instant (no
wake), as a policy that does not say when to wake does.

    gridsched simulate --workload SDSC-SP2-1998-4.2-cln.swf.gz --policy external \\
        --scheduler "python3 python/benchmarks/easy_decisions.py" --scheduler-stderr /dev/stderr
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import gridsched  # noqa: E402
from easy import EASY  # noqa: E402


class Counting(EASY):
    decisions = 0

    def schedule(self, view):
        Counting.decisions += 1
        EASY.schedule(self, view)

    def on_finish(self, now):
        print("%d decision requests (wake %s); scheduler CPU %.2f s" % (
            Counting.decisions, self.wake, time.process_time()), file=sys.stderr)


if __name__ == "__main__":
    s = Counting()
    if "--every-instant" in sys.argv:
        s.wake = None
    gridsched.run(s)
