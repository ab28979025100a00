"""Collection of the package's doctests: the compiled engine's kernel imports numba, which is
optional (an environment marker in pyproject.toml); without it, its module is not collected."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("numba") is not None else ["gametree/search/kernel.py"]
