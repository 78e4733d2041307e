"""BibTeX of the prompts, metrics, datasets and statistics a methods paragraph cites.

Where each entry was checked (:data:`CHECKED`): the papers' own reference lists in the seed copies
(/work/shared/seeds: CREPE prints GREEN, ReXVal, FineRadScore and Yu et al. 2023; GREEN prints ReXVal),
the publishers' pages (ACL Anthology for CREPE, PhysioNet for ReXVal, the arXiv abstract pages of VERT,
CRIMSON and RADAR), the authors' repository (CRIMSON's README gives its BibTeX) and the paper itself
(MAIRA-2's first page). The seed copy of VERT prints no title or authors and that of RADAR only the
authors' e-mail addresses; both were completed from their arXiv pages. One entry carries what is known
only, with a ``note`` saying what is unverified: LAIas Bench, whose copy prints no year, venue or
identifier. The statistics' references are the standard ones.
"""

from __future__ import annotations

from core.prompts.specs import prompt_spec

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
    "bologna2026vert": """@misc{bologna2026vert,
  title = {{VERT}: Reliable {LLM} Judges for Radiology Report Evaluation},
  author = {Bologna, Federica and Corbeil, Jean-Philippe and Wilkens, Matthew and Ben Abacha, Asma},
  year = {2026},
  eprint = {2604.03376},
  archivePrefix = {arXiv},
  primaryClass = {cs.AI}
}""",
    "cho2025crepe": """@inproceedings{cho2025crepe,
  title = {{CREPE}: Rapid Chest {X}-ray Report Evaluation by Predicting Multi-category Error Counts},
  author = {Cho, Gihun and Jang, Seunghyun and Ko, Hanbin and Baek, Inhyeok and Park, Chang Min},
  booktitle = {Proceedings of the 2025 Conference on Empirical Methods in Natural Language Processing},
  pages = {21749--21766},
  year = {2025},
  address = {Suzhou, China},
  publisher = {Association for Computational Linguistics}
}""",
    "baharoon2026crimson": """@misc{baharoon2026crimson,
  title = {{CRIMSON}: A Clinically-Grounded {LLM}-Based Metric for Generative Radiology Report Evaluation},
  author = {Baharoon, Mohammed and Heintz, Thibault and Raissi, Siavash and Alabbad, Mahmoud and Alhammad, Mona and AlOmaish, Hassan and Kim, Sung Eun and Banerjee, Oishi and Rajpurkar, Pranav},
  year = {2026},
  eprint = {2603.06183},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL}
}""",
    "sun2026radar": """@misc{sun2026radar,
  title = {{RADAR}: A Multimodal Benchmark for {3D} Image-Based Radiology Report Review},
  author = {Sun, Zhaoyi and Jagtiani, Minal and Yim, Wen-wai and Xia, Fei and Gunn, Martin and Yetisgen, Meliha and Ben Abacha, Asma},
  year = {2026},
  eprint = {2603.06681},
  archivePrefix = {arXiv},
  primaryClass = {cs.CV}
}""",
    "ribeiro-laias": """@misc{ribeiro-laias,
  title = {{LAIas Bench}: A Parametric Evaluation Protocol for Radiology Report Generation by Language Models},
  author = {Ribeiro, Natan Para{\\'\\i}so and Moreno, Raquel and Akira, Francisco},
  howpublished = {Laudos.AI, S{\\~a}o Paulo, Brazil},
  year = {n.d.},
  note = {Year, venue and identifier not printed in the copy used; the project's site lists a later version (LAIasBench: An Agent-Centric Benchmark for Radiology Finding-to-Report Generation) with five authors. Check before submission}
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
  title = {Radiology Report Expert Evaluation ({ReXVal}) Dataset (version 1.0.0)},
  author = {Yu, Feiyang and Endo, Mark and Krishnan, Rayan and Pan, Ian and Tsai, Andy and Reis, Eduardo Pontes and Fonseca, Eduardo Kaiser Ururahy Nunes and Lee, Henrique and Shakeri, Zahra and Ng, Andrew and Langlotz, Curtis and Venugopal, Vasantha Kumar and Rajpurkar, Pranav},
  year = {2023},
  howpublished = {PhysioNet},
  doi = {10.13026/2fp8-qr71}
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
  author = {Bannur, Shruthi and Bouzid, Kenza and Castro, Daniel C. and Schwaighofer, Anton and Thieme, Anja and Bond-Taylor, Sam and Ilse, Maximilian and P{\\'e}rez-Garc{\\'\\i}a, Fernando and Salvatelli, Valentina and Sharma, Harshita and Meissen, Felix and Ranjit, Mercy and Srivastav, Shaury and Gong, Julia and Codella, Noel C. F. and Falck, Fabian and Oktay, Ozan and Lungren, Matthew P. and Wetscherek, Maria Teodora and Alvarez-Valle, Javier and Hyland, Stephanie L.},
  year = {2024},
  eprint = {2406.04449},
  archivePrefix = {arXiv}
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

#: key -> where its authors, title, venue, year and identifier were checked.
CHECKED: dict[str, str] = {
    "ostmeier2024green": "CREPE's reference list (seed); the GREEN seed is the anonymous submission",
    "bologna2026vert": "arXiv abstract page of 2604.03376 (the seed copy prints no title or authors)",
    "cho2025crepe": "the seed's first page (title, authors); ACL Anthology 2025.emnlp-main.1102 (venue, pages)",
    "baharoon2026crimson": "rajpurkarlab/CRIMSON README (commit cb1f126) and the arXiv abstract page of 2603.06183",
    "sun2026radar": "arXiv abstract page of 2603.06681 (the seed copy prints the authors' e-mail addresses only)",
    "ribeiro-laias": "the seed's first page (title, authors, affiliation); no year, venue or identifier: see note",
    "yu2023evaluating": "CREPE's reference list (seed)",
    "yu2023rexval": "CREPE's and GREEN's reference lists (seed); PhysioNet page (version, DOI)",
    "huang2024fineradscore": "CREPE's reference list (seed)",
    "bannur2024maira2": "the paper's first page (arXiv 2406.04449); no seed cites the arXiv id (VERT: Bannur et al., 2024)",
}

#: key -> how the text cites it.
SHORT: dict[str, str] = {
    "ostmeier2024green": "Ostmeier et al., 2024", "bologna2026vert": "Bologna et al., 2026",
    "cho2025crepe": "Cho et al., 2025", "baharoon2026crimson": "Baharoon et al., 2026", "sun2026radar": "Sun et al., 2026",
    "ribeiro-laias": "Ribeiro et al., n.d.", "yu2023evaluating": "Yu et al., 2023a", "yu2023rexval": "Yu et al., 2023b",
    "huang2024fineradscore": "Huang et al., 2024", "bannur2024maira2": "Bannur et al., 2024",
    "papineni2002bleu": "Papineni et al., 2002", "lin2004rouge": "Lin, 2004", "kendall1945ties": "Kendall, 1945",
    "krippendorff2018content": "Krippendorff, 2018", "davison1997bootstrap": "Davison and Hinkley, 1997",
    "field2007clustered": "Field and Welsh, 2007", "hampel1974influence": "Hampel, 1974",
    "efron1993bootstrap": "Efron and Tibshirani, 1993", "koehn2004significance": "Koehn, 2004",
    "wilson1927": "Wilson, 1927",
}

#: A metric -> the works its formula comes from (a prompt's: its row's ``cites``, core.prompts.specs).
METRIC_CITES = {"green": ("ostmeier2024green",), "ec_sig": ("ostmeier2024green", "bologna2026vert"),
                "ec_total": ("bologna2026vert",), "green_f1": ("bologna2026vert",), "formula": ("bologna2026vert",), "vert": ("bologna2026vert",),
                "rubric": ("bologna2026vert",), "radfact": ("bannur2024maira2",), "fineradscore": ("huang2024fineradscore",),
                "bleu4": ("papineni2002bleu",), "bleu2": ("papineni2002bleu", "yu2023evaluating"),
                "rouge_l": ("lin2004rouge",), "laias_overall": ("ribeiro-laias",),
                "laias_adv_overall": ("ribeiro-laias",)}


def prompt_cites(prompt_id: str | None) -> tuple[str, ...]:
    """The works a prompt comes from: its row's ``cites`` (core.prompts.specs); () for an id the table lacks."""
    spec = prompt_spec(prompt_id)
    return spec.cites if spec is not None else ()


def metric_cites(metric: str) -> tuple[str, ...]:
    """The works a metric's definition comes from (every ``crimson*`` metric: CRIMSON)."""
    if metric.startswith("crimson"):
        return ("baharoon2026crimson",)
    return METRIC_CITES.get(metric, ())


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
