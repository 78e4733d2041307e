"""Deterministic report checks and conservative scoring (LAIas Bench, ``seeds/laias-bench.txt``).

- :mod:`core.checks.localespec`, ``pack_en_us``, ``pack_pt_br``: locale packs, data only; :mod:`core.checks.locale`
  lists them by code and compiles them.
- :mod:`core.checks.registry`: the table of checks (id, dimension, severity, message, function name);
  :mod:`core.checks.rules`: the check functions.
- :mod:`core.checks.scoring`: per-dimension 1-5 scores with caps, weighted overall, verdicts, dual phase.
- :mod:`core.checks.adversarial`: the LLM phase (judge prompt, parser, run through the LLM runner).
- :mod:`core.checks.store`: a dataset's checks as a judge run (kind ``checks``), and reading results back.
- :mod:`core.checks.report`: the HTML report section.
"""

from core.checks.locale import get_locale, locales, register_locale
from core.checks.rules import evaluate_pair
from core.checks.scoring import score_case

__all__ = ["evaluate_pair", "get_locale", "locales", "register_locale", "score_case"]
