"""NativeRNG of pyNN.olive: random numbers from olive's own generator.

olive draws with Random123's Philox4x32-10, keyed by a seed and counted
(common/math/rng.h: olive_rng4, olive_u01). In pyNN.olive PyNN's connectors
and parameter distributions run in Python, so "native" means that generator,
computed here in numpy: uniform k of a NativeRNG is half (k mod 2) of
olive_uniform2(seed, k // 2 mod 2^32, k // 2^33, 0, STREAM), exactly what
the C code gives for that counter. The numbers are not olive-genconn's (its
rules use other streams and other draws) nor NumpyRNG's.
"""

import numpy as np

from pyNN.random import NativeRNG as _NativeRNG, WrappedRNG

# a stream of common/math/rng.h's enum olive_stream no C program uses (1-14 are taken)
STREAM = 15

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_MASK = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def philox4x32(c0, c1, c2, c3, k0, k1):
    """Random123's philox4x32 with 10 rounds on arrays of 32-bit words (as uint64): 4 words."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) & _MASK for c in (c0, c1, c2, c3))
    k0, k1 = np.uint64(k0) & _MASK, np.uint64(k1) & _MASK
    for r in range(10):
        if r:
            k0, k1 = (k0 + _W0) & _MASK, (k1 + _W1) & _MASK
        p0, p1 = _M0 * c0, _M1 * c2           # 32 x 32 -> 64 bits: no overflow in uint64
        c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ k0, p1 & _MASK, (p0 >> _S32) ^ c3 ^ k1, p0 & _MASK
    return c0, c1, c2, c3


def u01(hi, lo):
    """olive_u01: a double in (0, 1) from the top 53 of 64 bits."""
    x = ((np.asarray(hi, dtype=np.uint64) << _S32) | np.asarray(lo, dtype=np.uint64)) >> np.uint64(11)
    return (x.astype(np.float64) + 0.5) * (1.0 / 9007199254740992.0)


SUPPORTED = ("uniform", "uniform_int", "normal", "normal_clipped", "normal_clipped_to_boundary", "lognormal",
             "exponential")


class NativeRNG(_NativeRNG, WrappedRNG):
    """Random numbers from olive's generator (Philox4x32-10 keyed by seed; seed None: setup()'s
    rng_seed), drawn in Python as every PyNN draw in pyNN.olive is. Distributions: uniform,
    uniform_int, normal (Box-Muller), normal_clipped, normal_clipped_to_boundary, lognormal,
    exponential; permutation() and choice() for the connectors."""

    def __init__(self, seed=None, parallel_safe=True):
        if seed is None:
            from .simulator import state
            seed = int(state.seed)
        if not 0 <= int(seed) < 2 ** 64:
            raise ValueError(f"pyNN.olive NativeRNG: seed {seed} must be in 0..2^64-1 (olive's key)")
        WrappedRNG.__init__(self, int(seed), parallel_safe)
        self.position = 0        # uniforms drawn so far: the counter of the next one

    def uniforms(self, n):
        """The next n uniforms (0, 1) of this generator's counter stream."""
        n = int(n)
        first = self.position
        self.position += n
        k = np.arange(first // 2, (first + n + 1) // 2, dtype=np.uint64)
        w = philox4x32(k & _MASK, k >> _S32, np.zeros_like(k), np.full_like(k, STREAM),
                       self.seed & 0xFFFFFFFF, self.seed >> 32)
        pairs = np.empty(2 * len(k))
        pairs[0::2], pairs[1::2] = u01(w[0], w[1]), u01(w[2], w[3])
        return pairs[first % 2:first % 2 + n]

    def _next(self, distribution, n, parameters):
        if distribution not in SUPPORTED:
            raise NotImplementedError(
                f"pyNN.olive's NativeRNG draws {', '.join(SUPPORTED)}, not {distribution!r}: "
                "use NumpyRNG for it")
        return getattr(self, "_" + distribution)(int(n), **parameters)

    def _uniform(self, n, low, high):
        return low + (high - low) * self.uniforms(n)

    def _uniform_int(self, n, low, high):
        # NumpyRNG's randint: low <= x < high
        return (int(low) + np.floor(self.uniforms(n) * (int(high) - int(low)))).astype(np.int64)

    def _normal(self, n, mu, sigma):
        if self.position % 2:      # Box-Muller takes the two uniforms of one counter
            self.position += 1
        u = self.uniforms(n + n % 2)
        r = np.sqrt(-2.0 * np.log(u[0::2]))
        z = np.empty(len(u))
        z[0::2], z[1::2] = r * np.cos(2 * np.pi * u[1::2]), r * np.sin(2 * np.pi * u[1::2])
        return mu + sigma * z[:n]

    def _normal_clipped(self, n, mu, sigma, low, high):
        return self._clipped(lambda m: self._normal(m, mu, sigma), low=low, high=high, size=n)

    def _normal_clipped_to_boundary(self, n, mu, sigma, low, high):
        return np.clip(self._normal(n, mu, sigma), low, high)

    def _lognormal(self, n, mu, sigma):
        return np.exp(self._normal(n, mu, sigma))

    def _exponential(self, n, beta):
        return -beta * np.log(self.uniforms(n))

    def permutation(self, x):
        """A random order of x (or of range(x)), as numpy's permutation."""
        x = np.arange(x) if np.ndim(x) == 0 else np.asarray(x)
        return x[np.argsort(self.uniforms(len(x)), kind="stable")]

    def choice(self, a, size=None, replace=True):
        """Draws from a (or range(a)), as numpy's choice without weights."""
        a = np.arange(a) if np.ndim(a) == 0 else np.asarray(a)
        n = 1 if size is None else int(np.prod(size))
        picked = a[self._uniform_int(n, 0, len(a))] if replace else self.permutation(a)[:n]
        return picked[0] if size is None else picked.reshape(size)
