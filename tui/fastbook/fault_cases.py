"""fastbook's group of ``benchlab bench faults`` file cases (declared in the ``benchlab.fault_cases`` entry-point
group): reviews of two curators' copies of the bundled sample, one with components inserted anywhere, decided in a
random order, merged, and checked against what the decisions mean (worked out here independently); then ``curate
fastbook --review A B --out A``, which must refuse before changing a curator's copy."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

from benchlab.annotations.fastbook.review import Review
from benchlab.data.fastbook import locate
from benchlab.tui.harness.fault_kit import CaseTally, check_exit, cli


def review_cases(root: Path, rng: random.Random, tally: CaseTally) -> None:
    source = json.loads(locate.sample_benchmark_path().read_text(encoding="utf-8"))
    for n in range(25):
        a_data, b_data = copy.deepcopy(source), copy.deepcopy(source)
        added = 0
        for question in b_data["questions"]:
            if rng.random() < 0.5:
                at = rng.randint(0, len(question["answer_context"]))
                question["answer_context"].insert(at, {"answer_component": f"new point {n}.{added}",
                                                       "scoring_type": "simple", "context": [],
                                                       "explicit_context": "false", "extraneous_answer": "false"})
                added += 1
            elif question["answer_context"] and rng.random() < 0.3:
                question["answer_context"][rng.randrange(len(question["answer_context"]))]["explicit_context"] = \
                    "true"
        folder = root / f"review-{n}"
        folder.mkdir()
        a, b = folder / "a.json", folder / "b.json"
        a.write_text(json.dumps(a_data, indent=4), encoding="utf-8")
        b.write_text(json.dumps(b_data, indent=4), encoding="utf-8")
        review = Review.open(a, b, "faults")
        order = list(range(len(review.items)))
        rng.shuffle(order)  # decisions in any order, A or B each: the merge must not depend on either
        chosen: dict[str, str] = {}
        for number in order:
            item = review.items[number]
            choice = rng.choice(("A", "B"))
            review.decide(number, "A" if choice == "A" else "B")
            for component in (item.a, item.b):
                if component is not None:
                    chosen.setdefault(component.answer_text, choice)
        merged = json.loads(review.save(folder / "m.json").read_text(encoding="utf-8"))
        tally.cases += 1
        originals = {(q["chapter"], q["question_number"]): {c["answer_component"] if isinstance(
            c["answer_component"], str) else "\n".join(c["answer_component"]): c for c in q["answer_context"]}
            for q in a_data["questions"]}
        for question, in_b in zip(merged["questions"], b_data["questions"], strict=True):
            qid = (question["chapter"], question["question_number"])
            expected = []
            for component in in_b["answer_context"]:  # what the decisions mean, worked out here independently
                text = component["answer_component"] if isinstance(component["answer_component"], str) \
                    else "\n".join(component["answer_component"])
                if text not in originals[qid]:  # inserted in B: there iff B was taken
                    if chosen.get(text) == "B":
                        expected.append(component)
                else:
                    expected.append(component if chosen.get(text) == "B" else originals[qid][text])
            got = question["answer_context"]
            tally.lost += sum(1 for c in expected if c not in got)
            tally.duplicated += max(0, len(got) - len(expected)) if all(c in got for c in expected) else \
                sum(max(0, got.count(c) - expected.count(c)) for c in got)
        before = a.read_bytes()
        code, text = cli("curate", "fastbook", "--review", str(a), str(b), "--out", str(a if n % 2 else b))
        check_exit(tally, f"review --out onto a curator's copy {n}", code, text, (2,))
        tally.lost += a.read_bytes() != before


