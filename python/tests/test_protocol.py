"""The protocol client on scripted conversations (no gridsched needed)."""

import io
import json
import unittest

import gridsched
from gridsched.protocol import Client, RunEnded

from support import load_example

HELLO = {"type": "hello", "protocol": 1, "gridsched": "test", "time_unit": "s",
         "platform": {"nodes": 4, "processors": 4, "groups": [{"first": 0, "count": 4, "processors": 1, "speed": 1}]},
         "workload": {"name": "w", "jobs": 3},
         "options": {"oracle": False, "overrun": "kill", "consultation": "settled", "deadlock": 86400}}


def job(i, submit, procs, est):
    return {"type": "submit", "job": {"id": i, "trace_id": i + 1, "submit": submit, "processors": procs, "estimate": est,
                                      "user": -1, "group": -1, "queue": -1, "partition": -1}}


def converse(scheduler, messages):
    """Run scheduler through messages; return what it wrote, as objects."""
    rfile = io.BytesIO("".join(json.dumps(m) + "\n" for m in messages).encode())
    wfile = io.BytesIO()
    Client(rfile, wfile, "test").serve(scheduler)
    return [json.loads(l) for l in wfile.getvalue().decode().splitlines()]


class ClientTest(unittest.TestCase):
    def test_easy_backfills(self):
        easy = load_example("easy").EASY()
        out = converse(easy, [
            HELLO,
            {"type": "decide", "seq": 1, "now": 0, "free": 4, "events": [job(0, 0, 2, 100)]},
            {"type": "decide", "seq": 2, "now": 10, "free": 2, "events": [job(1, 0, 4, 60), job(2, 10, 2, 90)]},
            {"type": "decide", "seq": 3, "now": 20, "free": 0, "events": [job(3, 20, 1, 200)]},
            {"type": "end", "now": 30},
        ])
        self.assertEqual(out[0], {"type": "hello", "protocol": 1, "name": "easy.py"})
        self.assertEqual(out[1], {"type": "decision", "seq": 1, "actions": [{"start": 0}], "wake": {"fits": True}})
        # Job 1 needs 4 and waits; job 2 ends by its shadow time (100) and backfills.
        self.assertEqual(out[2]["actions"], [{"start": 2}])
        self.assertEqual(out[3]["actions"], [])

    def test_view_refuses_what_gridsched_would(self):
        seen = {}

        class Bad(gridsched.Scheduler):
            def schedule(self, view):
                j = view.waiting[0]
                with self_test.assertRaisesRegex(ValueError, "needs 8 processors, 4 are free"):
                    view.start(j)
                small = view.waiting[1]
                view.start(small)
                with self_test.assertRaisesRegex(ValueError, "is not waiting"):
                    view.start(small)
                with self_test.assertRaisesRegex(ValueError, "before now"):
                    view.timer(view.now - 1)
                view.timer(view.now + 5, tag=3)
                seen["running"] = sorted(view.running)
                seen["free"] = view.free

        self_test = self
        out = converse(Bad(), [HELLO, {"type": "decide", "seq": 1, "now": 7, "free": 4,
                                       "events": [job(0, 7, 8, 10), job(1, 7, 1, 10)]}, {"type": "end", "now": 7}])
        self.assertEqual(out[1]["actions"], [{"start": 1}, {"timer": 12.0, "tag": 3}])
        self.assertEqual(seen, {"running": [1], "free": 3})

    def test_requeue_keeps_arrival_order_and_events_reach_callbacks(self):
        log = []

        class Watch(gridsched.Scheduler):
            def on_submit(self, job, view):
                log.append(("submit", job.id))

            def on_end(self, job, view):
                log.append(("end", job.id, job.state, job.end))

            def on_event(self, event, view):
                log.append((event["type"], [j.id for j in view.waiting]))

            def schedule(self, view):
                if view.now == 0:
                    for j in list(view.waiting)[:2]:
                        view.start(j)

        converse(Watch(), [
            HELLO,
            {"type": "decide", "seq": 1, "now": 0, "free": 4, "events": [job(0, 0, 1, 10), job(1, 0, 1, 10), job(2, 0, 1, 10)]},
            {"type": "decide", "seq": 2, "now": 5, "free": 4, "events": [
                {"type": "requeue", "time": 4, "id": 1}, {"type": "end", "time": 5, "id": 0, "state": "completed", "alloc": [[0, 1, 1]]}]},
            {"type": "end", "now": 5},
        ])
        self.assertEqual(log, [("submit", 0), ("submit", 1), ("submit", 2), ("requeue", [1, 2]), ("end", 0, "completed", 5)])

    def test_wake_and_result(self):
        class Sleepy(gridsched.Scheduler):
            def schedule(self, view):
                view.wake(free=3, submit=True)

        out = converse(Sleepy(), [HELLO, {"type": "decide", "seq": 1, "now": 0, "free": 4, "events": []}, {"type": "end", "now": 0}])
        self.assertEqual(out[1], {"type": "decision", "seq": 1, "actions": [], "wake": {"free": 3, "submit": True}})
        with self.assertRaises(RunEnded) as e:
            converse(Sleepy(), [HELLO, {"type": "result", "error": "boom"}])
        self.assertEqual(str(e.exception), "boom")

    def test_exception_is_sent_to_gridsched(self):
        class Broken(gridsched.Scheduler):
            def schedule(self, view):
                raise KeyError("no such thing")

        rfile = io.BytesIO((json.dumps(HELLO) + "\n" + json.dumps({"type": "decide", "seq": 1, "now": 0, "free": 4, "events": []}) + "\n").encode())
        wfile = io.BytesIO()
        with self.assertRaises(KeyError):
            Client(rfile, wfile).serve(Broken())
        last = json.loads(wfile.getvalue().decode().splitlines()[-1])
        self.assertEqual(last, {"type": "error", "message": "KeyError: 'no such thing'"})

    def test_protocol_version(self):
        with self.assertRaisesRegex(gridsched.ProtocolError, "speaks protocol 2"):
            converse(gridsched.Scheduler(), [dict(HELLO, protocol=2)])


if __name__ == "__main__":
    unittest.main()
