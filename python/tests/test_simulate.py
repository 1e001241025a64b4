"""simulate() and sweep() against the gridsched binary."""

import os
import sys
import tempfile
import unittest

import gridsched

from support import EXAMPLES, binary, load_example, trace

PY = sys.executable


class SimulateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.session = None

    def setUp(self):
        binary(self)
        if SimulateTest.session is None:
            SimulateTest.session = gridsched.Session()

    @classmethod
    def tearDownClass(cls):
        if cls.session is not None:
            cls.session.close()

    def test_in_process_examples_equal_builtins(self):
        """FCFS and EASY written in Python, deciding in this process, give
        the built-in policies' per-job records exactly."""
        for name, cls in (("fcfs", load_example("fcfs").FCFS), ("easy", load_example("easy").EASY)):
            with self.subTest(policy=name):
                mine = gridsched.simulate(cls(), jobs=600, load=0.95, session=self.session)
                theirs = gridsched.simulate(policy=name, jobs=600, load=0.95, session=self.session)
                self.assertEqual(len(mine.jobs), 600)
                self.assertEqual(mine.jobs, theirs.jobs)
                self.assertEqual(mine.summary["policy"], "external")
                self.assertEqual(mine.summary["wait"], theirs.summary["wait"])

    def test_command_scheduler_on_lublin(self):
        """A scheduler command (gridsched starts it) on the Lublin fixture."""
        path = trace(self, "lublin_256.swf")
        cmd = "%s %s" % (PY, os.path.join(EXAMPLES, "easy.py"))
        mine = gridsched.simulate(cmd, workload=path, session=self.session)
        theirs = gridsched.simulate(policy="easy", workload=path, session=self.session)
        self.assertEqual(mine.jobs, theirs.jobs)
        self.assertEqual(len(mine.jobs), 10000)

    def test_sjf_backfill_is_another_policy(self):
        sjf = gridsched.simulate(load_example("sjf_backfill").SJFBackfill(), jobs=600, load=0.95, session=self.session)
        easy = gridsched.simulate(policy="easy", jobs=600, load=0.95, session=self.session)
        self.assertEqual(sjf.summary["completed"], 600)
        self.assertNotEqual(sjf.summary["wait"]["mean"], easy.summary["wait"]["mean"])

    def test_scheduler_exception_reaches_the_caller(self):
        class Broken(gridsched.Scheduler):
            def schedule(self, view):
                if view.now > 0:
                    raise ZeroDivisionError("policy bug")

        with self.assertRaises(ZeroDivisionError):
            gridsched.simulate(Broken(), jobs=50, session=self.session)
        # The session is still in step: the next run works.
        self.assertEqual(gridsched.simulate(policy="fcfs", jobs=50, session=self.session).summary["completed"], 50)

    def test_invalid_action_is_refused_with_the_rule(self):
        class Twice(gridsched.Scheduler):
            def schedule(self, view):
                for j in view.waiting:
                    if j.processors <= view.free:
                        view.start(j)
                        view._actions.append('{"start":%d}' % j.id)  # behind the view's back
                        return

        with self.assertRaisesRegex(gridsched.GridschedError, r"it is running, not waiting \(rule: not waiting\)"):
            gridsched.simulate(Twice(), jobs=50, session=self.session)

    def test_records_and_files(self):
        with tempfile.TemporaryDirectory() as d:
            r = gridsched.simulate(policy="easy", jobs=100, out=d, session=self.session)
            self.assertEqual(r.out, d)
            for f in ("jobs.csv", "summary.json", "schedule.swf", "series.csv"):
                self.assertTrue(os.path.exists(os.path.join(d, f)), f)
        row = r.jobs[0]
        for k in ("job_id", "submission_time", "starting_time", "finish_time", "waiting_time", "allocated_resources"):
            self.assertIn(k, row)
        self.assertIsInstance(row["waiting_time"], (int, float))
        self.assertIsNone(gridsched.simulate(policy="easy", jobs=20, records=False, session=self.session).jobs)

    def test_bad_options(self):
        with self.assertRaisesRegex(TypeError, "unknown option 'nodez'"):
            gridsched.simulate(policy="easy", nodez=3)
        with self.assertRaisesRegex(gridsched.GridschedError, "unknown policy"):
            gridsched.simulate(policy="no-such-policy", jobs=10, session=self.session)


class SweepTest(unittest.TestCase):
    def test_sweep_with_an_external_scheduler(self):
        binary(self)
        cmd = "%s %s" % (PY, os.path.join(EXAMPLES, "fcfs.py"))
        spec = {"name": "py-sweep", "workload": {"model": "lublin", "params": {"nodes": 32}, "jobs": 200},
                "platform": {"nodes": 32}, "policies": ["external", "fcfs"], "external": {"command": cmd},
                "replications": {"count": 2}, "seed": 3, "metrics": ["mean_wait", "utilization"]}
        with tempfile.TemporaryDirectory() as d:
            out = gridsched.sweep(spec, os.path.join(d, "out"), workers=2)
        runs = out["runs"]
        self.assertEqual(len(runs), 4)
        by = {}
        for r in runs:
            by.setdefault(r["replication"], {})[r["policy"]] = r["mean_wait"]
        self.assertEqual(sorted(by), [0, 1])
        for rep, w in by.items():
            self.assertEqual(w["external"], w["fcfs"], "replication %s" % rep)
        self.assertEqual(len(out["aggregate"]), 4)


if __name__ == "__main__":
    unittest.main()


class ExamplesTest(unittest.TestCase):
    def test_random_agent_example_runs(self):
        """python/examples/random_agent.py (shown in docs/policies.md) runs
        its training loop and compares with the heuristics."""
        import subprocess
        binary(self)
        r = subprocess.run([PY, os.path.join(EXAMPLES, "random_agent.py"), "1"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^episode 0: random agent -[0-9.]+, SJF agent -[0-9.]+; built-in easy -[0-9.]+, fcfs -[0-9.]+, sjf -[0-9.]+\n$")
