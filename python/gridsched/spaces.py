"""Small stand-ins for gymnasium.spaces.Discrete and Box, used by the
environment when gymnasium is not importable (Debian has no package for it).
They have the parts an agent uses: ``n`` / ``shape``, ``low``, ``high``,
``sample()``, ``contains()`` and ``seed()``."""

import random

__all__ = ["Discrete", "Box"]


class Discrete:
    """The integers 0 … n−1."""

    def __init__(self, n, seed=None):
        self.n = int(n)
        self.shape = ()
        self.dtype = int
        self._rng = random.Random(seed)

    def seed(self, seed=None):
        self._rng = random.Random(seed)
        return [seed]

    def sample(self, mask=None):
        """A random element; with ``mask`` (n flags), one whose flag is set."""
        if mask is not None:
            ok = [i for i, m in enumerate(mask) if m]
            if not ok:
                raise ValueError("sample: the mask allows no action")
            return self._rng.choice(ok)
        return self._rng.randrange(self.n)

    def contains(self, x):
        try:
            return int(x) == x and 0 <= int(x) < self.n
        except (TypeError, ValueError):
            return False

    __contains__ = contains

    def __repr__(self):
        return "Discrete(%d)" % self.n

    def __eq__(self, other):
        return isinstance(other, Discrete) and other.n == self.n


class Box:
    """Vectors of ``shape[0]`` floats, each in [low, high]."""

    def __init__(self, low, high, shape, dtype=float, seed=None):
        self.low = float(low)
        self.high = float(high)
        self.shape = tuple(shape)
        self.dtype = dtype
        self._rng = random.Random(seed)

    def seed(self, seed=None):
        self._rng = random.Random(seed)
        return [seed]

    def sample(self):
        return [self._rng.uniform(self.low, self.high) for _ in range(self.shape[0])]

    def contains(self, x):
        try:
            return len(x) == self.shape[0] and all(self.low <= float(v) <= self.high for v in x)
        except (TypeError, ValueError):
            return False

    __contains__ = contains

    def __repr__(self):
        return "Box(%g, %g, %r)" % (self.low, self.high, self.shape)
