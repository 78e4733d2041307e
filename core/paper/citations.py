"""BibTeX of the prompts, metrics, datasets and statistics a methods paragraph cites.

Entries are written from the papers' own reference lists where the repository holds them
(/work/shared/seeds: GREEN, CREPE, VERT) and from the standard references of the statistics. Two
entries carry what is known only: VERT is a preprint whose copy here prints no authors, and CREPE's
venue is not printed in it; their ``note`` says so, to be completed before submission.
"""

from __future__ import annotations

BIBTEX: dict[str, str] = {
    "ostmeier2024green": """@inproceedings{ostmeier2024green,
  title = {{GREEN}: Generative Radiology Report Evaluation and Error Notation},
  author = {Ostmeier, Sophie and Xu, Justin and Chen, Zhihong and Varma, Maya and Blankemeier, Louis and Bluethgen, Christian and Michalson, Arne Edward and Moseley, Michael and Langlotz, Curtis and Chaudhari, Akshay S. and Delbrouck, Jean-Benoit},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2024},
  pages = {374--390},
  year = {2024},
  address = {Miami, Florida, USA},
  publisher = {Association for Computational Linguistics}
}""",
    "vert2026": """@misc{vert2026,
  title = {{VERT}: Reliable {LLM} Judges for Radiology Report Evaluation},
  author = {{VERT authors}},
  year = {2026},
  eprint = {2604.03376},
  archivePrefix = {arXiv},
  note = {Preprint under review; the copy the prompts were taken from prints no author names: complete them from arXiv:2604.03376}
}""",
    "cho2025crepe": """@misc{cho2025crepe,
  title = {{CREPE}: Rapid Chest X-ray Report Evaluation by Predicting Multi-category Error Counts},
  author = {Cho, Gihun and Jang, Seunghyun and Ko, Hanbin and Baek, Inhyeok and Park, Chang Min},
  year = {2025},
  howpublished = {\\url{https://gihuncho.github.io/crepe}},
  note = {Venue not printed in the copy used here; complete before submission}
}""",
    "yu2023evaluating": """@article{yu2023evaluating,
  title = {Evaluating progress in automatic chest {X}-ray radiology report generation},
  author = {Yu, Feiyang and Endo, Mark and Krishnan, Rayan and Pan, Ian and Tsai, Andy and Reis, Eduardo Pontes and Fonseca, Eduardo Kaiser Ururahy Nunes and Lee, Henrique Min Ho and Abad, Zahra Shakeri Hossein and Ng, Andrew Y. and Langlotz, Curtis P. and Venugopal, Vasantha Kumar and Rajpurkar, Pranav},
  journal = {Patterns},
  volume = {4},
  number = {9},
  pages = {100802},
  year = {2023}
}""",
    "yu2023rexval": """@misc{yu2023rexval,
  title = {Radiology Report Expert Evaluation ({ReXVal}) Dataset},
  author = {Yu, Feiyang and Endo, Mark and Krishnan, Rayan and Pan, Ian and Tsai, Andy and Reis, Eduardo Pontes and Fonseca, Eduardo Kaiser Ururahy Nunes and Lee, Henrique and Shakeri, Zahra and Ng, Andrew and Langlotz, Curtis and Venugopal, Vasantha Kumar and Rajpurkar, Pranav},
  year = {2023},
  howpublished = {PhysioNet}
}""",
    "huang2024fineradscore": """@misc{huang2024fineradscore,
  title = {{FineRadScore}: A Radiology Report Line-by-Line Evaluation Technique Generating Corrections with Severity Scores},
  author = {Huang, Alyssa and Banerjee, Oishi and Wu, Kay and Reis, Eduardo Pontes and Rajpurkar, Pranav},
  year = {2024},
  eprint = {2405.20613},
  archivePrefix = {arXiv}
}""",
    "bannur2024maira2": """@misc{bannur2024maira2,
  title = {{MAIRA-2}: Grounded Radiology Report Generation},
  author = {Bannur, Shruthi and others},
  year = {2024},
  eprint = {2406.04449},
  archivePrefix = {arXiv},
  note = {Defines RadFact; complete the author list before submission}
}""",
    "papineni2002bleu": """@inproceedings{papineni2002bleu,
  title = {{BLEU}: a Method for Automatic Evaluation of Machine Translation},
  author = {Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing},
  booktitle = {Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics},
  pages = {311--318},
  year = {2002}
}""",
    "lin2004rouge": """@inproceedings{lin2004rouge,
  title = {{ROUGE}: A Package for Automatic Evaluation of Summaries},
  author = {Lin, Chin-Yew},
  booktitle = {Text Summarization Branches Out},
  pages = {74--81},
  year = {2004}
}""",
    "kendall1945ties": """@article{kendall1945ties,
  title = {The Treatment of Ties in Ranking Problems},
  author = {Kendall, Maurice G.},
  journal = {Biometrika},
  volume = {33},
  number = {3},
  pages = {239--251},
  year = {1945}
}""",
    "krippendorff2018content": """@book{krippendorff2018content,
  title = {Content Analysis: An Introduction to Its Methodology},
  author = {Krippendorff, Klaus},
  edition = {4},
  publisher = {SAGE},
  year = {2018}
}""",
    "davison1997bootstrap": """@book{davison1997bootstrap,
  title = {Bootstrap Methods and Their Application},
  author = {Davison, Anthony C. and Hinkley, David V.},
  publisher = {Cambridge University Press},
  year = {1997}
}""",
    "field2007clustered": """@article{field2007clustered,
  title = {Bootstrapping Clustered Data},
  author = {Field, Christopher A. and Welsh, Alan H.},
  journal = {Journal of the Royal Statistical Society: Series B},
  volume = {69},
  number = {3},
  pages = {369--390},
  year = {2007}
}""",
    "hampel1974influence": """@article{hampel1974influence,
  title = {The Influence Curve and Its Role in Robust Estimation},
  author = {Hampel, Frank R.},
  journal = {Journal of the American Statistical Association},
  volume = {69},
  number = {346},
  pages = {383--393},
  year = {1974}
}""",
    "efron1993bootstrap": """@book{efron1993bootstrap,
  title = {An Introduction to the Bootstrap},
  author = {Efron, Bradley and Tibshirani, Robert J.},
  publisher = {Chapman \\& Hall},
  year = {1993}
}""",
    "koehn2004significance": """@inproceedings{koehn2004significance,
  title = {Statistical Significance Tests for Machine Translation Evaluation},
  author = {Koehn, Philipp},
  booktitle = {Proceedings of the 2004 Conference on Empirical Methods in Natural Language Processing},
  pages = {388--395},
  year = {2004}
}""",
    "wilson1927": """@article{wilson1927,
  title = {Probable Inference, the Law of Succession, and Statistical Inference},
  author = {Wilson, Edwin B.},
  journal = {Journal of the American Statistical Association},
  volume = {22},
  number = {158},
  pages = {209--212},
  year = {1927}
}""",
}

#: key -> how the text cites it.
SHORT: dict[str, str] = {
    "ostmeier2024green": "Ostmeier et al., 2024", "vert2026": "VERT, arXiv:2604.03376",
    "cho2025crepe": "Cho et al., 2025", "yu2023evaluating": "Yu et al., 2023a", "yu2023rexval": "Yu et al., 2023b",
    "huang2024fineradscore": "Huang et al., 2024", "bannur2024maira2": "Bannur et al., 2024",
    "papineni2002bleu": "Papineni et al., 2002", "lin2004rouge": "Lin, 2004", "kendall1945ties": "Kendall, 1945",
    "krippendorff2018content": "Krippendorff, 2018", "davison1997bootstrap": "Davison and Hinkley, 1997",
    "field2007clustered": "Field and Welsh, 2007", "hampel1974influence": "Hampel, 1974",
    "efron1993bootstrap": "Efron and Tibshirani, 1993", "koehn2004significance": "Koehn, 2004",
    "wilson1927": "Wilson, 1927",
}

#: A prompt id (prefix) or a metric -> the works its text or formula comes from.
PROMPT_CITES = {"green_original": ("ostmeier2024green",), "green": ("ostmeier2024green", "vert2026"),
                "vert": ("vert2026",), "formula": ("vert2026",), "rubric": ("vert2026",),
                "radfact": ("bannur2024maira2", "vert2026"), "fineradscore": ("huang2024fineradscore", "vert2026")}
METRIC_CITES = {"green": ("ostmeier2024green",), "ec_sig": ("ostmeier2024green", "vert2026"),
                "ec_total": ("vert2026",), "green_f1": ("vert2026",), "formula": ("vert2026",), "vert": ("vert2026",),
                "rubric": ("vert2026",), "radfact": ("bannur2024maira2",), "fineradscore": ("huang2024fineradscore",),
                "bleu4": ("papineni2002bleu",), "bleu2": ("papineni2002bleu", "yu2023evaluating"),
                "rouge_l": ("lin2004rouge",)}


def prompt_cites(prompt_id: str | None) -> tuple[str, ...]:
    """The works a prompt comes from (few-shot VERT variants ``vert_*`` cite VERT)."""
    if not prompt_id:
        return ()
    if prompt_id in PROMPT_CITES:
        return PROMPT_CITES[prompt_id]
    return ("vert2026",) if prompt_id.startswith("vert") else ()


def cite(keys, form: str) -> str:
    """``(Kendall, 1945; ...)`` in text, ``\\citep{kendall1945ties,...}`` in LaTeX; empty without keys."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return ""
    if form == "latex":
        return "\\citep{" + ",".join(keys) + "}"
    return "(" + "; ".join(SHORT[k] for k in keys) + ")"


def bibtex(keys) -> str:
    """The BibTeX entries of ``keys``, in order, each once."""
    return "\n\n".join(BIBTEX[k] for k in dict.fromkeys(keys)) + "\n"
