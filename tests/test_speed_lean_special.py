"""The comparisons' normal and t functions load scipy's special-function ufuncs without ``scipy.special``'s
array-API layer (``numpy.ma``, ``numpy.f2py``, ``numpy.testing``): the same ufunc objects, so the same values, and a
later ``import scipy.special`` still works (it reuses them)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from benchlab.data.analysis.stats import distributions as d
loaded = sorted(m for m in ("numpy.ma", "numpy.f2py", "numpy.testing", "scipy.special") if m in sys.modules)
values = [d.norm_ppf(0.975), d.norm_sf(1.3), d.t_ppf(0.975, 7.5), d.t_sf(2.1, 3.0)]
import scipy.special as sp
from scipy import stats
same = sp.ndtri is d.sc.ndtri and sp.stdtrit is d.sc.stdtrit
reference = [float(stats.norm.ppf(0.975)), float(stats.norm.sf(1.3)), float(stats.t.ppf(0.975, 7.5)),
             float(stats.t.sf(2.1, 3.0))]
print(json.dumps({"loaded": loaded, "same": same, "values": values, "reference": reference}))
"""


def test_the_ufuncs_load_without_the_array_api_layer_and_give_scipys_values() -> None:
    out = json.loads(subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                                    timeout=120).stdout)
    assert out["loaded"] == []
    assert out["same"] is True
    assert out["values"] == out["reference"]
