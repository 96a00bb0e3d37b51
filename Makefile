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
TEST_EXTRAS ?= test,video,sim,explore,hf,serve,ray,export,mesh,view,browser-test,perception,track
TORCH ?= torch==2.13.0
DEMO_OUT ?= demo-out

.PHONY: install install-test peers demo test test-fast lint bench clean chromium gl-libs

# the synthetic worlds' renderer (moderngl) draws with Mesa's EGL (llvmpipe on CPU-only machines); as root
# with apt-get, the libraries are installed when missing, else the command to run is printed
GL_PACKAGES ?= libegl1 libegl-mesa0 libgl1-mesa-dri
gl-libs:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa.so.0'; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && apt-get install -y -qq $(GL_PACKAGES); \
	  else echo "the renderer needs Mesa's EGL: sudo apt-get install -y $(GL_PACKAGES)"; fi; fi

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)

# the demo renders videos (PyAV) and scores EXPLORE (spaCy + Sentence-BERT, which need torch)
DEMO_EXTRAS ?= video,sim,explore,view

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q '$(TORCH)'
	$(PIP) install -q -e '.[$(DEMO_EXTRAS)]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q '$(TORCH)'
	$(PIP) install -q -e '.[$(TEST_EXTRAS)]' '$(TORCH)'  # restating torch keeps every extra on the CPU build
	@# PyPI's torchvision (an lmms-eval requirement) is a CUDA build that cannot load beside the CPU torch and
	@# then breaks transformers; lmms-eval's OpenAI path does not use it: drop it where it cannot import
	@$(PY) -c 'import torchvision' 2>/dev/null || $(PIP) uninstall -y -q torchvision
	@touch $@

install: gl-libs $(VENV)/.installed
install-test: gl-libs $(VENV)/.installed-test

# the peer harnesses as released, in their own environment: lmms-eval 0.7 pins PyAV < 16 and pulls a CUDA
# torchvision, so it cannot share the test venv. The round-trip tests run it through EGOWORLD_LMMS_EVAL_PYTHON
# (an exported task's utils.py imports egoworld, so egoworld is installed there too); Inspect is in the test venv
PEER_VENV ?= .venv-peers
$(PEER_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python -m pip install -q '$(TORCH)'
	$(PEER_VENV)/bin/python -m pip install -q -e '.[lmms-eval]' '$(TORCH)'
	@$(PEER_VENV)/bin/python -c 'import torchvision' 2>/dev/null || $(PEER_VENV)/bin/python -m pip uninstall -y -q torchvision
	@$(PEER_VENV)/bin/python -c 'import lmms_eval, av; print("lmms-eval environment ready, PyAV", av.__version__)'
	@touch $@
peers: $(PEER_VENV)/.installed
export EGOWORLD_LMMS_EVAL_PYTHON := $(abspath $(PEER_VENV))/bin/python

demo: install
	$(VENV)/bin/egoworld demo --out $(DEMO_OUT)
	@echo "look at the results: $(VENV)/bin/egoworld view $(DEMO_OUT)"

# browser tests drive Debian's chromium (never `playwright install`, which downloads a browser)
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq chromium)

# two pytest-xdist workers, each taking whole test files (`--dist loadfile`), so a file's module fixtures are
# built once; worlds several files share are built once per run (tests/shared_builds.py). TEST_WORKERS=0: serial
TEST_WORKERS ?= 2
PYTEST_PARALLEL := -n $(TEST_WORKERS) --dist loadfile

test: install-test peers chromium
	$(PY) -m pytest -q $(PYTEST_PARALLEL) --durations=25

test-fast: install-test
	$(PY) -m pytest -q $(PYTEST_PARALLEL) -m "not slow"

lint: install-test
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy  # strict on src/egoworld/core ([tool.mypy] in pyproject.toml)

bench: install-test
	-$(PIP) install -q -e '.[bench]' '$(TORCH)'  # decord, torchcodec (bench/frames.py skips one that does not import)
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) $(PEER_VENV) $(DEMO_OUT) .pytest_cache .ruff_cache .mypy_cache
