"""The rules judge's negation / uncertainty / history / "not assessed" scope against medspacy's ConText.

Issue 32 asks whether a maintained clinical NLP library should replace the judge's hand-written scope
rules. Both read the same findings: the hand-labelled sentences of ``bench/rules_assertions.py`` (each
named finding labelled present / absent / possible / history / unassessed by its words, independently
of the judge's vocabulary), and for speed the reports of the demo pairs.

Two steps, because medspacy 1.3.1 pins ``spacy<3.8`` and with it numpy 1.26, which the project's venv
(numpy 2) cannot take: it is measured in a venv of its own.

    .venv/bin/python bench/bench_rules_context.py --export /tmp/context.json    # the judge's figures + data
    python3.11 -m venv /tmp/mvenv && /tmp/mvenv/bin/pip install medspacy==1.3.1
    /tmp/mvenv/bin/python bench/bench_rules_context.py --medspacy /tmp/context.json

The first prints the judge's status accuracy on the labelled findings and writes the sentences with the
labelled words' character spans, plus every demo report with the spans of the findings the judge's
scanner names there (so ConText is timed on the same targets, only for its scope). The second runs
medspacy's default pipeline (PyRuSH sentences, ConText with its default rules) with those spans as
entities, once with the default rules and once with the judge's own limit / hedge / history phrases
added as ConText rules, and prints its accuracy and its speed (pairs/s, CPU time, one process). The
second step imports nothing from the project.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STATUSES = ("present", "absent", "possible", "history", "unassessed")


def _judge_status(f) -> str:
    if f.kind == "limit":
        return "unassessed"
    if f.kind == "history":
        return "history"
    if not f.present:
        return "absent"
    return "present" if f.certainty == "definite" else "possible"


def judge_statuses() -> list[tuple[str, str, str, str]]:
    """(sentence, words, label, the judge's status) for every labelled finding ('missed': not extracted)."""
    sys.path.insert(0, str(ROOT))
    from bench.rules_assertions import SENTENCES
    from core.judges.rules.extract import parse_report
    from core.judges.rules.findings import concepts_related
    from core.judges.rules.patterns import SCANNER

    out = []
    for sent, labels in SENTENCES:
        found = [f for f in parse_report(sent) if f.kind != "statement"]
        mentions = SCANNER.scan(sent)
        for words, want in labels.items():
            a = sent.index(words)
            b = a + len(words)
            keys = [c.key for c, s, e in mentions if s < b and a < e]
            # a finding read from these words: of a related concept (or offering it as an alternative), or a
            # density merged into its reading, whose text holds the words
            cands = [f for f in found if any(concepts_related(k, c) for k in keys for c in (f.concept, *f.alternatives))
                     or words in f.text]
            cands.sort(key=lambda f, w=words: w not in f.text)  # the finding read from these words first
            out.append((sent, words, want, _judge_status(cands[0]) if cands else "missed"))
    return out


def _report(name: str, rows: list[tuple[str, str, str, str]]) -> None:
    right = sum(want == got for _, _, want, got in rows)
    print(f"{name}: {right} of {len(rows)} labelled findings right ({right / len(rows):.1%})")
    for status in STATUSES:
        sub = [(w, g) for _, _, w, g in rows if w == status]
        if sub:
            print(f"  {status:10s} {sum(w == g for w, g in sub):3d} / {len(sub):3d}")
    for sent, words, want, got in rows:
        if want != got:
            print(f"  wrong: {words!r} is {want}, read {got}: {sent}")


def export(path: str, pairs: int, seed: int) -> None:
    sys.path.insert(0, str(ROOT))
    from bench.rules_assertions import SENTENCES
    from core.ingest.synth import generate_demo
    from core.judges.rules import clear_caches, judge_pair
    from core.judges.rules.patterns import SCANNER

    _report("rules judge", judge_statuses())
    corpus = generate_demo(pairs, seed=seed)
    texts = [t for r, c in zip(corpus.pairs["reference"], corpus.pairs["candidate"], strict=True) for t in (r, c)]
    clear_caches()
    t0 = time.process_time()
    for i in range(0, len(texts), 2):
        clear_caches()
        judge_pair(texts[i], texts[i + 1])
    cold = time.process_time() - t0
    print(f"rules judge, whole pair judged cold (parse both, match): {pairs / cold:,.0f} pairs/s "
          f"({cold:.2f} CPU s for {pairs} demo pairs, seed {seed})")
    data = {"sentences": [{"text": s, "targets": [[s.index(w), s.index(w) + len(w), lab] for w, lab in labels.items()]}
                          for s, labels in SENTENCES],
            "reports": [{"text": t, "targets": [[a, b] for _, a, b in SCANNER.scan(t)]} for t in texts],
            "pairs": pairs, "seed": seed}
    Path(path).write_text(json.dumps(data))
    print(f"wrote {path}")


# -- the medspacy side (no project import) ---------------------------------------------------------------

#: The judge's own limit / hedge / history phrases, as ConText rules (literal, category, direction).
EXTRA_RULES = (
    ("cannot be assessed", "NOT_ASSESSED", "BACKWARD"), ("cannot be evaluated", "NOT_ASSESSED", "BACKWARD"),
    ("not well evaluated", "NOT_ASSESSED", "BACKWARD"), ("is limited", "NOT_ASSESSED", "BACKWARD"),
    ("limited evaluation for", "NOT_ASSESSED", "FORWARD"), ("unable to assess", "NOT_ASSESSED", "FORWARD"),
    ("cannot be excluded", "POSSIBLE_EXISTENCE", "BACKWARD"), ("not well seen", "POSSIBLE_EXISTENCE", "BACKWARD"),
    ("may represent", "POSSIBLE_EXISTENCE", "FORWARD"), ("likely", "POSSIBLE_EXISTENCE", "FORWARD"),
    ("known", "HISTORICAL", "FORWARD"), ("in a patient with", "HISTORICAL", "FORWARD"),
)


def _context_status(ent) -> str:
    cats = {m.category for m in ent._.modifiers}
    if "NOT_ASSESSED" in cats:
        return "unassessed"
    if ent._.is_negated:
        return "absent"
    if ent._.is_historical:
        return "history"
    if ent._.is_uncertain or ent._.is_hypothetical:
        return "possible"
    return "present"


def _docs(nlp, items, with_labels: bool):
    yield from _docs_plain(nlp, items, with_labels, _context_status)


def _docs_plain(nlp, items, with_labels: bool, status):
    from spacy.tokens import Span

    for item in items:
        doc = nlp.make_doc(item["text"])
        spans = []
        for t in item["targets"]:
            span = doc.char_span(t[0], t[1], label="FINDING", alignment_mode="expand")
            if span is not None and not any(span.start < s.end and s.start < span.end for s in spans):
                spans.append(span)
        doc.ents = [Span(doc, s.start, s.end, label="FINDING") for s in spans]
        for pipe_name, proc in nlp.pipeline:
            if pipe_name != "medspacy_target_matcher":  # the targets are given
                doc = proc(doc)
        if with_labels:
            by_start = {e.start_char: e for e in doc.ents}
            rows = []
            for a, b, lab in item["targets"]:
                ent = next((e for e in doc.ents if e.start_char <= a < e.end_char), by_start.get(a))
                rows.append((item["text"], item["text"][a:b], lab, status(ent) if ent else "missed"))
            yield rows
        else:
            yield doc


def run_medspacy(path: str) -> None:
    import medspacy
    from loguru import logger
    from medspacy.context import ConTextRule

    logger.remove()  # PyRuSH logs every token at DEBUG
    data = json.loads(Path(path).read_text())
    for name, extra in (("medspacy ConText, default rules", False),
                        ("medspacy ConText, default rules + the judge's limit/hedge/history phrases", True)):
        nlp = medspacy.load()
        if extra:
            nlp.get_pipe("medspacy_context").add([ConTextRule(lit, cat, direction=d) for lit, cat, d in EXTRA_RULES])
        rows = [r for rs in _docs(nlp, data["sentences"], True) for r in rs]
        _report(name, rows)
    for name, fast in (("PyRuSH sentences", False), ("spaCy's rule-based sentencizer", True)):
        if fast:  # medspacy.load() always adds PyRuSH: build the pipeline by hand
            import spacy

            nlp = spacy.blank("en")
            nlp.add_pipe("sentencizer")
            nlp.add_pipe("medspacy_context")
        else:
            nlp = medspacy.load()
        t0 = time.process_time()
        for _ in _docs(nlp, data["reports"], False):
            pass
        secs = time.process_time() - t0
        print(f"medspacy ({name} + ConText, targets given): {data['pairs'] / secs:,.0f} pairs/s "
              f"({secs:.2f} CPU s for {data['pairs']} demo pairs, seed {data['seed']}), before any matching")


def run_negspacy(path: str) -> None:
    """negspacy 1.1.0 (NegEx, its "en_clinical" termset) on the same targets: negation only."""
    import spacy
    from negspacy.negation import Negex  # noqa: F401  (registers the "negex" factory)
    from negspacy.termsets import termset

    data = json.loads(Path(path).read_text())
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("negex", config={"ent_types": ["FINDING"], "neg_termset": termset("en_clinical").get_patterns()})

    def status(ent) -> str:
        return "absent" if ent._.negex else "present"

    rows = [r for rs in _docs_plain(nlp, data["sentences"], True, status) for r in rs]
    _report("negspacy NegEx (negation only: everything not negated reads present)", rows)
    t0 = time.process_time()
    for _ in _docs_plain(nlp, data["reports"], False, status):
        pass
    secs = time.process_time() - t0
    print(f"negspacy (sentencizer + NegEx, targets given): {data['pairs'] / secs:,.0f} pairs/s "
          f"({secs:.2f} CPU s for {data['pairs']} demo pairs, seed {data['seed']})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--export", metavar="PATH", help="the judge's figures, and write the data for --medspacy")
    ap.add_argument("--medspacy", metavar="PATH", help="run medspacy's ConText on the exported data")
    ap.add_argument("--negspacy", metavar="PATH", help="run negspacy's NegEx on the exported data")
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    if args.medspacy:
        run_medspacy(args.medspacy)
    elif args.negspacy:
        run_negspacy(args.negspacy)
    elif args.export:
        export(args.export, args.pairs, args.seed)
    else:
        _report("rules judge", judge_statuses())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
