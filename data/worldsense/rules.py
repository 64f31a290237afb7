"""WorldSense's answer rules, shared by scoring, per-item feedback and the human-session engine.

One table decides what counts as correct, so an app that says "correct" after a trial agrees with the scored
tables: options "1" and "2" of the completeness problems are the same class (KNOW, "decidable"), and any string
outside the table (``""``, ``"true"``, ``"(1)"``) is wrong and carries no bias sign (spec sections 6 and 10.4-10.6).
"""

from __future__ import annotations

from typing import Final

#: The range of a Key: an exact signed 64-bit integer (Keys beyond 2**53 are why they are never floats).
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1

#: Obfuscated gold value in ``trials.jsonl.bz2`` -> real answer (a fixed one-to-one table, spec section 3).
GOLD_OBFUSCATION: Final[dict[str, str]] = {
    "Emmanuel": "TRUE",
    "Megi": "FALSE",
    "Dieuwke": "POSSIBLE",
    "Pascal": "IMPOSSIBLE",
    "Mark": "1",
    "Youssef": "2",
    "Yoda": "3",
}
#: Real answer -> obfuscated value (to write trial files in the published form).
GOLD_OBFUSCATION_INVERSE: Final[dict[str, str]] = {real: obf for obf, real in GOLD_OBFUSCATION.items()}

#: Response -> answer class; correctness compares the classes of response and gold.
ANSWER_CLASS: Final[dict[str, str]] = {
    "TRUE": "TRUE",
    "FALSE": "FALSE",
    "POSSIBLE": "POSSIBLE",
    "IMPOSSIBLE": "IMPOSSIBLE",
    "1": "KNOW",
    "2": "KNOW",
    "3": "UNKNOWN",
}
#: Response -> bias sign (+1 for "TRUE"/"POSSIBLE"/"decidable").
BIAS_SIGN: Final[dict[str, float]] = {
    "TRUE": 1.0,
    "FALSE": -1.0,
    "POSSIBLE": 1.0,
    "IMPOSSIBLE": -1.0,
    "1": 1.0,
    "2": 1.0,
    "3": -1.0,
}
#: Gold answer -> weight of the trial inside its tuple (each tuple's weights sum to 1).
GOLD_WEIGHT: Final[dict[str, float]] = {
    "TRUE": 0.5,
    "FALSE": 0.5,
    "POSSIBLE": 0.5,
    "IMPOSSIBLE": 0.5,
    "1": 0.25,
    "2": 0.25,
    "3": 0.5,
}

#: Display order of the published tables; unknown names (e.g. a participant id) follow in order of appearance.
PROBLEM_ORDER: Final[tuple[str, ...]] = (
    "trivial-ulist-complete-TF",
    "Infer.trivial",
    "complete-TF",
    "Infer.normal",
    "trivial-complete-PI",
    "Consist.trivial",
    "complete-PI",
    "Consist.normal",
    "incomplete-easy",
    "Compl.trivial",
    "incomplete-hard",
    "Compl.normal",
    "complete-unary-TF",
    "Infer.extrema",
    "complete-TF-parallel",
    "Infer.parallel",
)
#: The original's model preference list. Its missing comma glues 'Llama2-FT+0' to other names, so that model is
#: "unknown" there and prints last; we keep the list as it behaves so the tables match cell for cell.
MODEL_ORDER: Final[tuple[str, ...]] = (
    "gpt3.5",
    "GPT3.5",
    "gpt-4",
    "GPT4",
    "llama",
    "llama2_70b",
    "Llama2-chat",
    "llama2_70b_finetuned_0",
    "llama2_70b_finetuned_100kllama2_70b_finetuned_1MLlama2-FT+0",  # the glued entry, kept on purpose
    "Llama2-FT+100k",
    "Llama2-FT+1M",
    "llama_finetuned_0",
    "llama_finetuned_2k",
    "llama_finetuned_10k",
    "llama_finetuned_100k",
    "llama_finetuned_1M",
)
PROMPTING_ORDER: Final[tuple[str, ...]] = (
    "basic", "direct", "clarified", "COT", "incontext_IID", "incontext_DIFFERENTCAT",
)


def deobfuscate(value: str) -> str:
    """Real gold answer for an obfuscated value (values outside the table pass through, as in the original)."""
    return GOLD_OBFUSCATION.get(value, value)


def is_correct(resp: str, gold: str) -> bool:
    """Whether ``resp`` scores as correct for ``gold`` (exact strings; "1" and "2" are both "decidable")."""
    cls = ANSWER_CLASS.get(resp)
    return cls is not None and cls == ANSWER_CLASS.get(gold)
