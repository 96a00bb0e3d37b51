# egoworld — set-up and checks. `make demo` and `make test` work on a fresh machine (Python 3.11+).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export MPLBACKEND := Agg
# llama-cpp-python compiles from source (no wheel here): a portable build
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
# extras the test suite needs (grows as packages land); torch first, from the local CPU build
TEST_EXTRAS ?= test,video,explore,hf,serve,ray
TORCH ?= torch==2.13.0
DEMO_OUT ?= demo-out

.PHONY: install install-test demo test test-fast lint bench clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)

# the demo renders videos (PyAV) and scores EXPLORE (spaCy + Sentence-BERT, which need torch)
DEMO_EXTRAS ?= video,explore

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q '$(TORCH)'
	$(PIP) install -q -e '.[$(DEMO_EXTRAS)]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q '$(TORCH)'
	$(PIP) install -q -e '.[$(TEST_EXTRAS)]'
	@touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: install
	$(VENV)/bin/egoworld demo --out $(DEMO_OUT)

test: install-test
	$(PY) -m pytest -q

test-fast: install-test
	$(PY) -m pytest -q -m "not slow"

lint: install-test
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

bench: install-test
	-$(PIP) install -q -e '.[bench]'  # decord, torchcodec (bench/frames.py skips one that does not import)
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) $(DEMO_OUT) .pytest_cache .ruff_cache
