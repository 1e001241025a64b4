"""Shared by the tests: the gridsched binary, the repository's folders."""

import functools
import os
import unittest

import gridsched

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON)
EXAMPLES = os.path.join(PYTHON, "examples")


@functools.lru_cache(maxsize=None)
def _binary():
    try:
        return gridsched.find_binary(), None
    except gridsched.GridschedError as e:
        return None, str(e)


def binary(test):
    """The gridsched binary, or skip the test saying why there is none."""
    b, why = _binary()
    if b is None:
        test.skipTest(why)
    return b


def traces():
    return os.environ.get("GRIDSCHED_TRACES") or os.path.join(REPO, "..", "shared", "traces")


def trace(test, name):
    p = os.path.join(traces(), name)
    if not os.path.exists(p):
        test.skipTest("trace %s not found (set GRIDSCHED_TRACES)" % p)
    return p


def load_example(name):
    """An example's module (its scheduler classes)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    import sys
    sys.path.insert(0, EXAMPLES)
    try:
        spec.loader.exec_module(m)
    finally:
        sys.path.remove(EXAMPLES)
    return m


unittest.TestCase.maxDiff = None
