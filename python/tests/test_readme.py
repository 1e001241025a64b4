"""The README's Python example runs and prints what the README shows.

``python3 tests/test_readme.py code`` prints the example's code (CI runs
it with the package installed by pip)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON)
MARK = "<!-- python example: checked by python/tests/test_readme.py -->"


def example():
    """The README's example code and the output it shows."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    m = re.search(re.escape(MARK) + r"\n```python\n(.*?)\n```\n\n```console\n(.*?)\n```", text, re.S)
    if m is None:
        raise AssertionError("README.md: no Python example after %s" % MARK)
    return m.group(1) + "\n", m.group(2) + "\n"


class ReadmeTest(unittest.TestCase):
    def test_readme_example(self):
        from support import binary
        binary(self)
        code, shown = example()
        env = dict(os.environ, PYTHONPATH=PYTHON)
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-"], input=code, cwd=d, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, shown)


if __name__ == "__main__":
    if sys.argv[1:] == ["code"]:
        sys.stdout.write(example()[0])
    elif sys.argv[1:] == ["output"]:
        sys.stdout.write(example()[1])
    else:
        unittest.main()
