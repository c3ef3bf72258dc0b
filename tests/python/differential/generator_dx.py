"""Family "dx": df-1's generator (generator.py) again, on seeds 100000 and up, with every f32
dot in full precision (generator.IEEE_DOTS). df-1 found six differences in its 300
kernels; more seeds of the same grammar are the cheapest way to look for the next ones.
Kernel k is generator.generate(SEED_BASE + k)."""

import generator as _df

GENERATOR_VERSION = "dx-2"
COUNT = 300
SEED_BASE = 100000


def generate(k, fingerprint=True):
    _df.IEEE_DOTS = True
    try:
        return _df.generate(SEED_BASE + k, fingerprint=fingerprint)
    finally:
        _df.IEEE_DOTS = False
