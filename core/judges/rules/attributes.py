"""What a sentence says about a finding, read by the rule-based judge's parser
(:mod:`core.judges.rules.extract`): its grade on the finding's severity scale, its size, its side and its
anatomic sites (each site normalised within its class: "L4-5", "segment VII", "right upper lobe").
"""

from __future__ import annotations

import re

from core.judges.rules import vocab as V
from core.judges.rules.patterns import (
    ADJ,
    GRADE_RE,
    NUM_RE,
    OCCLUSION,
    PCT_RE,
    ROMAN,
    SCALE_LEVELS,
    SCALE_RES,
    SIDE_RE,
    SITE_ORDER,
    SITE_SCANNER,
    SIZE_RE,
    TIRADS_RE,
)

__all__ = ["grade_of", "side_of", "sites_of", "size_of"]


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _singular(phrase: str) -> str:
    head, _, last = phrase.rpartition(" ")
    if last.endswith("ies"):
        last = last[:-3] + "y"
    elif last.endswith(("uses", "xes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is", "pons", "ceps")) and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}" if head else last


def _norm_site(cls: str, raw: str) -> str:
    s = " ".join(raw.split())
    low = _singular(s.lower())
    if cls == "spine level":
        m = re.match(r"([CTLS])(\d{1,2})(?:\s*-\s*([CTLS])?(\d{1,2})|\s+on\s+([CTLS])(\d{1,2}))?", s)
        if not m:
            return s
        a = f"{m.group(1)}{m.group(2)}"
        if m.group(4):
            return f"{a}-{m.group(3) or m.group(1)}{m.group(4)}"
        if m.group(6):
            return f"{a}-{m.group(5)}{m.group(6)}"
        return a
    if cls == "liver segment":
        tok = s.split()[-1].rstrip("abAB")
        return f"segment {ROMAN.get(tok.upper(), tok)}"
    if cls == "rib":
        nums = re.findall(r"\d+", s)
        return "-".join(nums)
    if cls == "clock face":
        return re.match(r"\d+", s).group(0)
    if cls == "nodal station" and low in ("hilum", "hila", "infracarinal"):
        return "hilar" if low.startswith("hil") else "subcarinal"
    if cls == "nodal station" and low.startswith("level"):
        tok = low.split()[-1].rstrip("ab").upper()
        return f"level {ROMAN.get(tok, tok)}"
    if cls == "lung lobe":
        abbr = {"rul": "right upper lobe", "rml": "right middle lobe", "rll": "right lower lobe",
                "lul": "left upper lobe", "lll": "left lower lobe"}
        return abbr.get(low, low.removesuffix("s") if low.endswith("lobes") else low)
    if cls == "vessel":
        low = low.replace("carotid bifurcation", "carotid bulb").replace("acom", "anterior communicating artery")
        return low.replace("pcom", "posterior communicating artery").replace("middle cerebral artery", "mca")
    if cls == "kidney pole":
        if low.startswith("interpolar") or low.startswith("mid"):
            return "interpolar region"
        return low.removesuffix("s")
    if cls == "lung zone":
        if low.startswith("peri"):
            return "perihilar"
        return "apex" if low.startswith("ap") else "mid lung" if low.startswith("mid") else "base"
    if cls == "hip region":
        return low.removesuffix(" region")
    if cls == "breast region":
        return "retroareolar region" if ("areolar" in low) else low
    if cls == "curve":
        return "dextroconvex" if low.startswith("dextro") else "levoconvex"
    if cls == "brain region":
        return low.replace("lobes", "lobe").replace("convexities", "convexity").replace("thalami", "thalamus")
    if cls == "device tip":
        low = re.sub(r"main-?\s?stem(?: bronchus)?", "mainstem bronchus", low)
        return {"svc": "superior vena cava", "cavo-atrial junction": "cavoatrial junction"}.get(low, low)
    return low


def grade_of(concept: V.Concept, text: str) -> tuple[tuple[str, float] | None, str | None]:
    for scale in concept.scales:
        if scale == "tirads":
            m = TIRADS_RE.search(text)
            if m:
                return ("tirads", float(m.group(1))), f"TI-RADS {m.group(1)}"
        elif scale == "grade":
            m = GRADE_RE.search(text)
            if m:
                tok = m.group(1).upper()
                n = ROMAN.get(tok) or int(tok)
                return ("grade", float(n)), f"grade {n}"
        elif scale == "pct":
            m = PCT_RE.search(text)
            if m:
                a = int(m.group("a"))
                b = int(m.group("b")) if m.group("b") else a
                v = (a + b) / 2
                if m.group("lt"):
                    v = a - 1
                elif m.group("gt"):
                    v = a + 1
                lvl = 0 if v < 50 else 1 if v < 70 else 2 if v < 100 else 3
                return ("pct", float(lvl)), " ".join(m.group(0).split())
            if OCCLUSION.search(text):
                return ("pct", 3.0), "occluded"
        else:
            levels = SCALE_LEVELS[scale]
            found = [(levels[int(m.lastgroup[1:])], m.group(0)) for m in SCALE_RES[scale].finditer(text)]
            if found:
                lvl = sum(x for x, _ in found) / len(found)
                words = " to ".join(dict.fromkeys(ADJ.get(w.lower(), w.lower()) for _, w in found))
                return (scale, lvl), words
    return None, None


def size_of(text: str) -> tuple[float | None, str | None]:
    best: float | None = None
    best_text = None
    for m in SIZE_RE.finditer(text):
        unit = m.group("u").lower()
        factor = 10.0 if unit.startswith("c") else 1.0
        try:
            v = max(float(x) for x in NUM_RE.findall(m.group("n"))) * factor
        except ValueError:
            continue
        if best is None or v > best:
            best, best_text = round(v, 1), " ".join(m.group(0).split())
    return best, best_text


def side_of(text: str) -> str | None:
    found = set()
    for m in SIDE_RE.finditer(text):
        if m.group("para"):
            found.add(" ".join(m.group("para").lower().split()))
        elif m.group("central"):
            found.add(m.group("central").lower())
        elif m.group("bi"):
            found.add("bilateral")
        else:
            found.add(m.group("lr").lower())
    if not found:
        return None
    if "bilateral" in found or {"left", "right"} <= found:
        return "bilateral"
    if len(found) == 1:
        return found.pop()
    for pref in ("left paracentral", "right paracentral", "left", "right", "central", "paracentral"):
        if pref in found:
            return pref
    return None


def sites_of(text: str) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], str]:
    """Anatomic sites by class, and ``text`` with them blanked."""
    found: dict[str, list[str]] = {}
    spans = []
    for cls, a, b in SITE_SCANNER.scan(text):
        v = _norm_site(cls, text[a:b])
        vals = found.setdefault(cls, [])
        if v and v not in vals:
            vals.append(v)
        spans.append((a, b))
    if not spans:
        return (), text
    for a, b in spans:
        text = _blank(text, a, b)
    sites = tuple((cls, tuple(sorted(vals))) for cls, vals in sorted(found.items(), key=lambda kv: SITE_ORDER[kv[0]])
                  if vals)
    return sites, text
