"""Declared exclusions, applied identically by ``compare``, ``export trials``, the Results screen and ``benchlab
report`` (one function, :func:`exclusion_log`), with a per-person log (rule, figure, threshold).

- :mod:`.rules`: the rule kinds, each naming its data (never the scored outcome), checked from the study file's
  ``[[exclusions]]`` or the command line (exploratory);
- :mod:`.evaluate`: :func:`exclusion_log`, who each rule excludes and why;
- :mod:`.dataset`: a study folder or results folders read once (:func:`load_data`).
"""

from benchlab.annotations.exclusions.evaluate import Exclusion, ExclusionLog, exclusion_log
from benchlab.annotations.exclusions.rules import KINDS, Rule, check_rule, declared_rules, parse_cli_rule

__all__ = ["KINDS", "Exclusion", "ExclusionLog", "Rule", "check_rule", "declared_rules", "exclusion_log",
           "parse_cli_rule"]
