"""Reading one report: segmentation, observations and their attributes, deduplication.

:func:`parse_report` turns a report's text into normalised
:class:`~core.judges.rules.findings.Finding` s.  Parsed sentences and reports
are cached (``lru_cache``), which pays off because report language is
repetitive ("No pneumothorax.") and a reference is judged against several
candidates; :func:`clear_caches` forgets them (benchmarks).

1. **Segmentation.**  HTML and control characters are removed and dates masked.
   Section headers are recognised (FINDINGS / IMPRESSION / CONCLUSION are read;
   EXAMINATION, COMPARISON, INDICATION, TECHNIQUE ... are skipped; text before
   any header is read as findings).  Sections are split into sentences (not on
   decimals such as ``2.7 cm``; numbered lists and bullets are unwrapped) and
   at semicolons.
2. **Observations.**  Each sentence is scanned for the observations of
   :mod:`core.judges.rules.vocab` (synonyms: "pleural effusion" / "fluid in the
   pleural space", "consolidation" / "airspace opacity", ...).  A sentence with
   several observations is cut into one segment per observation at the
   separators between them (``,`` ``and`` ``or`` ``with`` ``;``).
3. **Attributes** of each observation, read from its segment with the
   observation's own words masked: polarity (pre-negations "no", "without",
   "negative for", "free of", "no evidence of" scope over a list until "but",
   "however", ...; post-negations "is not seen", "is absent", "has resolved"
   cover the observation and the ones joined to it by "or"), certainty
   ("possible", "cannot be excluded", "probable", "suspicious for", ...),
   laterality (left / right / bilateral, paracentral / central), anatomic
   sites by class (lung lobe, spine level, rib, liver segment, kidney pole,
   nodal station, clock face, ...), severity on the observation's ordinal
   scale (trace < mild/small < moderate < severe/large; TI-RADS; tear
   thickness; fracture displacement; stenosis percent), the largest
   measurement in mm (``2.7 cm`` = ``27 mm``), and a comparison with a prior
   study (new / unchanged / increased / decreased / resolved; "increased" and
   "decreased" only count after the observation -- "effusion, increased" --
   or with a temporal cue such as "since", "prior", "compared", "interval":
   "increased opacity" is a description).  Earlier measurements ("previously
   3.2 cm") are not read as sizes.  Normal-anatomy statements ("the heart size is
   normal", "the menisci are intact") state the absence of the matching
   observation.  Sentences with no known observation are kept as plain
   statements.
4. **Deduplication** within a report (:mod:`.dedupe`): an observation restated in the
   impression is merged into the findings' one (missing attributes filled
   in); a conflicting restatement in a later section is dropped; two
   incompatible instances in one section (a nodule in each lung) are kept.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from core.judges.rules import vocab as V
from core.judges.rules.attributes import grade_of, side_of, sites_of, size_of
from core.judges.rules.dedupe import dedupe
from core.judges.rules.findings import Finding
from core.judges.rules.patterns import (
    ABNORMAL,
    ADJECTIVE_AFTER,
    ANAPHOR,
    AND_OR_SEP,
    AS_ARE,
    CHANGE_OF_ANATOMY,
    CHEST_PART,
    CLAUSE_WORD,
    CLEAR_BEFORE,
    CONDITIONAL,
    CONTRAST,
    COPULA_BEFORE,
    CUE_SCANNER,
    DIGIT,
    ELSEWHERE,
    EXCEPTION,
    MEDIASTINUM,
    NEXT_WORDS,
    NORMAL_HINT,
    NORMAL_PREFIX_RES,
    NORMAL_RES,
    OTHER_PART,
    READING_BEFORE,
    SCANNER,
    SEP_RE,
    SIDE_COMPARISON,
    SIDE_HINT,
    SIDE_PLACED,
    SIDE_WORD,
    SITE_SCANNER,
    STOP,
    WEAK_CHANGE_RE,
    WITH_AFTER,
    WORD_RE,
)
from core.judges.rules.patterns import (
    PLURAL_CUE as _PLURAL,
)
from core.judges.rules.scope import Mention, backward, forward, next_joined, readings
from core.judges.rules.segment import MAX_REPORT_CHARS as MAX_REPORT_CHARS
from core.judges.rules.segment import MAX_SENTENCE_CHARS as MAX_SENTENCE_CHARS
from core.judges.rules.segment import clean_text, finding_sections, sentences

#: Longer inputs are cut (a report is a few KB; these bound the work per pair). The runner, ``score`` and Live
#: scoring refuse a longer report before it gets here (core.judges.bounds: the one cap of every offline judge).
MAX_STATEMENTS = 300


@lru_cache(maxsize=4096)
def _mask_term(piece: str) -> str:
    """An observation's words blanked, its side and site words kept."""
    chars = [" "] * len(piece)
    keep = [(m.start(), m.end()) for m in SIDE_WORD.finditer(piece)]
    keep += [(a, b) for _, a, b in SITE_SCANNER.scan(piece)]
    for a, b in keep:
        chars[a:b] = piece[a:b]
    return "".join(chars)


@lru_cache(maxsize=32768)
def _analyse_sentence(sent: str, section: str) -> tuple[Finding, ...]:
    """The statements of one sentence (cached: report sentences repeat a lot, "No pneumothorax.")."""
    return tuple(_analyse_sentence_uncached(sent, section))


def _analyse_sentence_uncached(sent: str, section: str) -> list[Finding]:
    mentions = [Mention(c, a, b) for c, a, b in SCANNER.scan(sent)]
    if not mentions:
        return _normal_or_statement(sent, section)

    # text with the observations' own words blanked; side and site words inside
    # them are kept ("infraspinatus tear", "femoral neck fracture")
    chars = list(sent)
    for mn in mentions:
        chars[mn.start:mn.end] = _mask_term(sent[mn.start:mn.end])
    masked = "".join(chars)

    # segments: cut between consecutive observations at the last separator
    seps_between: list[str] = []
    mentions[0].seg_start = 0
    for a, b in zip(mentions, mentions[1:], strict=False):
        gap = sent[a.end:b.start]
        seps = list(SEP_RE.finditer(gap))
        last = seps[-1] if seps else None
        if last is not None:
            a.seg_end = a.end + last.start()
            b.seg_start = a.end + last.end()
            # a list joins findings ("effusion, small pneumothorax or edema"), a clause does not
            # ("COPD, the lungs are hyperinflated"): the separator counts only between list items
            rest = gap[:last.start()] + " " + gap[last.end():]
            listed = len(rest.split()) <= 3 and not CLAUSE_WORD.search(rest)
            seps_between.append(last.group(0) if listed else "")
        else:
            a.seg_end = b.start
            b.seg_start = b.start
            seps_between.append("")
    mentions[-1].seg_end = len(sent)

    # cues, in one leftmost scan where comparison > hedge > prior-study phrase >
    # negation > scope stop: "no significant change" is a comparison, not a negation
    temporal = False
    changes: list[tuple[int, int, str]] = []
    hedges: list[tuple[int, int, tuple[str, str]]] = []
    pre: list[int] = []
    post: list[tuple[int, bool]] = []  # (where, plural: "are not seen" also covers a list joined by "and")
    limit_pre: list[int] = []
    limit_post: list[tuple[int, bool]] = []
    history: list[int] = []
    post_normal: list[int] = []
    stops: list[int] = []
    blanked: list[tuple[int, int]] = []
    for (kind, name), a, b in CUE_SCANNER.scan(masked):
        if kind == "change":
            changes.append((a, b, name))
        elif kind == "hedge":
            hedges.append((a, b, name))
            blanked.append((a, b))
        elif kind == "limit_post":
            limit_post.append((a, True))  # "effusion and pneumothorax cannot be assessed": both
            blanked.append((a, b))
        elif kind == "limit_pre":
            limit_pre.append(b)
            blanked.append((a, b))
        elif kind == "history":
            if not READING_BEFORE.search(masked, max(0, a - 60), a):  # "consistent with the known COPD": seen
                history.append(b)
            blanked.append((a, b))
        elif kind == "post_normal":
            post_normal.append(a)
        elif kind == "prior":
            temporal = True
            blanked.append((a, b))
        elif kind == "temporal":
            temporal = True
        elif kind == "pre":
            pre.append(b)
        elif kind == "post":
            post.append((a, _PLURAL.match(masked, a) is not None))
        else:
            stops.append(a)
    if not temporal:
        # "increased opacity" is a description; "the effusion, increased" or a
        # change stated with "since", "prior", "interval" ... is a comparison
        # ... but "lung volumes are mildly decreased" describes too
        first_end = mentions[0].end
        changes = [c for c in changes if c[2] not in V.NEEDS_TEMPORAL
                   or (c[0] >= first_end and not COPULA_BEFORE.search(masked, max(0, c[0] - 30), c[0])
                       and not ADJECTIVE_AFTER.match(masked, c[1]))]
    changes = [c for c in changes if not CONDITIONAL.search(masked, max(0, c[0] - 40), c[0])
               and not (c[2] in V.NEEDS_TEMPORAL and (SIDE_COMPARISON.match(masked, c[1])
                                                      or (not temporal and SIDE_PLACED.match(masked, c[1]))))]
    strong = [c for c in changes if not WEAK_CHANGE_RE.fullmatch(masked, c[0], c[1])]
    if strong and len(strong) < len(changes):
        changes = strong
    # "leads show an unchanged cardiomediastinal silhouette": the comparison is the silhouette's
    # (not when a finding's words come first: "stable calcified granuloma left lung base")
    # ... and the finding the anatomy is described with ("stable mediastinal contours with a tortuous aorta")
    carried: dict[int, tuple[int, int, str]] = {}
    for c in [c for c in changes if (m := CHANGE_OF_ANATOMY.match(masked, c[1]))
              and not any(c[1] <= mn.start < m.end() for mn in mentions)]:
        changes.remove(c)
        anatomy = CHANGE_OF_ANATOMY.match(masked, c[1])
        w = WITH_AFTER.match(masked, anatomy.end()) if MEDIASTINUM.search(anatomy.group()) else None
        nxt = next((i for i, mn in enumerate(mentions) if w and mn.start >= w.end()), None)
        if nxt is not None and NEXT_WORDS.fullmatch(masked, w.end(), mentions[nxt].start):
            carried[nxt] = c
            blanked.append(c[:2])
    blanked += [(a, b) for a, b, _ in changes]
    if blanked:
        chars = list(masked)
        for a, b in blanked:
            chars[a:b] = " " * (b - a)
        neg_text = "".join(chars)
    else:
        neg_text = masked

    # negation: pre-negation scopes forward over a list, post-negation backwards over "or" ("and" too after
    # a plural verb: "effusion and pneumothorax are not seen"); limits and history cues scope the same way
    for p in pre:
        for mn in forward(mentions, stops, p, len(sent)):
            mn.negated = True
    for mn in mentions:
        if CLEAR_BEFORE.search(masked, max(0, mn.start - 24), mn.start):
            mn.negated = True
    for p, plural in post:
        for mn in backward(mentions, seps_between, p, plural):
            mn.negated = True
    for p in limit_pre:
        for mn in forward(mentions, stops, p, len(sent)):
            mn.unassessed = True
    for p, plural in limit_post:  # not past a contrast ("X, although the abdomen is not well evaluated")
        for mn in backward(mentions, seps_between, p, plural):
            mn.unassessed = mn.unassessed or not any(mn.end <= st < p and CONTRAST.match(masked, st) for st in stops)
    for p in history:  # "known lung cancer and COPD", not "known COPD, the lungs are hyperinflated"
        for mn in next_joined(mentions, seps_between, stops, p, joined=AND_OR_SEP):
            mn.history = True
    for p in post_normal:  # "pulmonary vascular engorgement appears within normal limits"
        for mn in backward(mentions, seps_between, p, True):
            if len(sent[mn.end:p].split()) <= 3 and not any(mn.end <= st < p for st in stops):
                mn.negated = True
    for hs, he, (certainty, direction) in hedges:
        targets = next_joined(mentions, seps_between, stops, he) if direction != "back" else []
        if direction != "fwd" or not targets:
            targets += backward(mentions, seps_between, hs, True)
        for mn in targets:
            if mn.certainty == "definite":
                mn.certainty = certainty

    # a comparison before a list covers the list ("no significant change in pneumothorax or pleural fluid"),
    # one after it too ("the pneumothorax and the effusion are unchanged")
    found_change: list[tuple[str, str, bool, int, int] | None] = []
    for mn in mentions:
        s0, s1 = mn.seg_start, mn.seg_end
        hit = next(((kind, " ".join(masked[cs:ce].split()), cs < mn.start, cs, ce) for cs, ce, kind in changes
                    if s0 <= cs < s1 or (mn is mentions[0] and cs < s0)), None)
        if hit is None and len(found_change) in carried:
            cs, ce, kind = carried[len(found_change)]
            hit = (kind, " ".join(masked[cs:ce].split()), True, cs, ce)
        found_change.append(hit)
    for i in range(len(mentions) - 1):
        hit = found_change[i]
        if hit is not None and not hit[2] and found_change[i + 1] is None and \
                AS_ARE.match(sent, hit[4], mentions[i + 1].start):
            found_change[i + 1] = hit
    for i in range(len(mentions)):
        hit = found_change[i]
        if hit is None:
            continue
        step = 1 if hit[2] else -1
        j = i
        while 0 <= j + step < len(mentions) and found_change[j + step] is None and \
                AND_OR_SEP.match(seps_between[min(j, j + step)] or "x"):
            j += step
            found_change[j] = hit

    out: list[Finding] = []
    read: list[Mention] = []
    for mn, hit in zip(mentions, found_change, strict=True):
        s0, s1 = mn.seg_start, mn.seg_end
        if mn.negated and ELSEWHERE.search(sent, s0, s1):
            continue  # "no opacity elsewhere": the finding stated at its place stands
        read.append(mn)
        seg = neg_text[s0:s1]
        if "xcept" in seg or " from " in seg or " than " in seg or " for " in seg:
            cut = [m.end() for m in EXCEPTION.finditer(neg_text, s0, mn.start)]
            if cut:
                seg = neg_text[cut[-1]:s1]
        change, change_text = (hit[0], hit[1]) if hit else (None, None)
        certainty = mn.certainty
        present = not mn.negated
        if change == "resolved":
            present = False
        kind = "finding"
        if mn.unassessed and not mn.negated:
            kind, present, certainty = "limit", False, "not assessed"
        elif mn.history and not mn.negated and change in (None, "resolved"):  # "history of pneumonia, resolved"
            kind, present = "history", True
        low = seg.lower()
        sites, rest = sites_of(seg)
        if mn.concept.family == "device":  # "tip in the right atrium" is where it ends, not its side
            side = side_of(rest) if SIDE_HINT.search(rest.lower()) else None
        else:
            side = side_of(seg) if SIDE_HINT.search(low) else None
        grade, grade_text = grade_of(mn.concept, rest)
        size, size_text = size_of(rest) if ("m" in low and DIGIT.search(low)) else (None, None)
        out.append(Finding(
            kind=kind, concept=mn.concept.key, name=mn.concept.name, present=present, section=section,
            text=sent[s0:s1].strip(" ,;"), certainty=certainty if present or kind == "limit" else "definite",
            side=side,
            sites=sites, grade=grade, grade_text=grade_text, size_mm=size, size_text=size_text,
            change=change if present or change == "resolved" else None,
            change_text=change_text if present or change == "resolved" else None,
            change_at=f"{hit[3]}:{sent}" if hit and (present or change == "resolved") else None))
    return readings(sent, read, out)


def _normal_or_statement(sent: str, section: str) -> list[Finding]:
    if NORMAL_HINT.search(sent) and not ABNORMAL.search(sent):
        keys: list[str] = []
        for rx, ks in NORMAL_RES:
            if rx.search(sent):
                keys.extend(k for k in ks if k not in keys)
        for rx, ks in NORMAL_PREFIX_RES:
            if rx.search(sent):
                keys.extend(k for k in ks if k not in keys)
        if keys:
            return [Finding(kind="finding", concept=k, name=V.CONCEPT_BY_KEY[k].name, present=False,
                            section=section, text=sent) for k in keys]
    tokens = frozenset(w for w in WORD_RE.findall(sent.lower()) if w not in STOP and w != "date")
    if not tokens:
        return []
    change = change_text = None
    cues = CUE_SCANNER.scan(sent)  # a comparison stated for the study ("no significant interval change")
    temporal = any(k in ("prior", "temporal") for (k, _), _a, _b in cues)
    for (kind, name), a, b in cues:
        if kind == "change" and (temporal or name not in V.NEEDS_TEMPORAL) and name != "resolved" and \
                not CONDITIONAL.search(sent, max(0, a - 40), a):
            change, change_text = name, " ".join(sent[a:b].split())
            break
    return [Finding(kind="statement", concept="", name="statement", present=True, section=section, text=sent,
                    tokens=tokens, change=change, change_text=change_text,
                    change_at="prior" if temporal or change else None)]


@lru_cache(maxsize=8192)
def parse_report(text: str) -> tuple[Finding, ...]:
    """Normalised, deduplicated statements of one report (positives, then negatives, then others)."""
    cleaned = clean_text(text)
    if not cleaned.strip():
        return ()
    raw: list[Finding] = []
    sections = finding_sections(cleaned)
    # the findings section is read first so that it wins over the impression
    sections.sort(key=lambda s: s[0] != "findings")
    for name, body in sections:
        previous: list[int] = []  # where the last sentence's findings are in ``raw``
        elsewhere = False  # under a heading of another body part ("Right knee:"): another study's findings
        for sent in sentences(body):
            if OTHER_PART.match(sent):
                elsewhere = True
            elif CHEST_PART.match(sent):
                elsewhere = False
            if elsewhere:
                continue
            found = _analyse_sentence(sent, name)
            if previous and len(found) == 1 and found[0].kind == "statement" and found[0].change \
                    and ANAPHOR.match(sent):
                # "These are also unchanged.": the comparison of the findings the sentence before states
                for i in previous:
                    if not raw[i].change:
                        raw[i] = replace(raw[i], change=found[0].change, change_text=found[0].change_text,
                                         change_at=f"0:{sent}")
                continue
            previous = [len(raw) + k for k, f in enumerate(found) if f.kind == "finding" and f.present]
            raw.extend(found)
            if len(raw) >= MAX_STATEMENTS:
                return tuple(dedupe(raw[:MAX_STATEMENTS]))
    return tuple(dedupe(raw))


def clear_caches() -> None:
    """Forget cached report and sentence parses and spelling readings (for benchmarks)."""
    from core.judges.rules import spelling  # imported here: only this function of extract needs the module

    spelling.clear_caches()
    parse_report.cache_clear()
    _analyse_sentence.cache_clear()
    _mask_term.cache_clear()
