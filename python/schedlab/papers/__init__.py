"""One module per paper whose schedulers schedlab implements: its clusters, workloads, presets and
experiment functions, which the notebooks, the tests and the reproduction report call. Importing a
module registers its datasets with :mod:`schedlab.datasets`. Full references: ``docs/references.md``.

* :mod:`.wang2017` — J. Wang, PhD dissertation, UMass Boston, 2017: FRESH, OMO, eSplash.
* :mod:`.zhao2013` — Zhao et al., IEICE Trans. Inf. & Syst., 2013: EAS.
* :mod:`.zhou2019` — W. Zhou, PhD dissertation, Univ. of Virginia, 2019: Dice, Eirene, Eunomia.
* :mod:`.tang2014` — Tang, Lee, He, IEEE Trans. Cloud Computing, 2014: DynamicMR.
* :mod:`.lim2015` — Lim, Majumdar, Ashwood-Smith, ICPE 2015: MRCP and EDF.
"""
from . import lim2015, tang2014, wang2017, zhao2013, zhou2019

__all__ = ["lim2015", "tang2014", "wang2017", "zhao2013", "zhou2019"]
