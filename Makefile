# qalg — the two set-up commands:
#   make run    install what is missing, build, run inspect + rank + lower on the paper's Q_2
#   make test   install what is missing, build, run every test that can run on this machine
SHELL := /bin/bash
BUILD ?= build
JOBS ?= $(shell nproc)
# Debian 12 packages qalg builds and tests with (apt-get installs only what is missing).
APT_PACKAGES := build-essential cmake g++ libflint-dev libgmp-dev libmpfr-dev librapidcheck-dev \
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev \
  libeigen3-dev libboost-graph-dev libssl-dev libopenmpi-dev openmpi-bin nauty \
  pybind11-dev python3-dev ninja-build
APT_TEST_PACKAGES := gap-core coq python3 clang libclang-rt-14-dev pari-gp
# PyPI packages of the Python module's tests, the notebooks (issue 10) and the Python lint test,
# for the python3 on PATH.
PIP_TEST_PACKAGES := pytest==9.0.3 nbclient==0.11.0 nbconvert==7.17.1 nbformat==5.11.1 \
  ipykernel==7.4.0 matplotlib==3.10.9 pylint==4.1.5

.PHONY: run test deps test-deps build clean gpu-check bench notebooks

# dpkg -s per package is fast, so the check runs every time (no stamp that could go stale).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

test-deps: deps
	@missing=$$(for p in $(APT_TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore $(PIP_TEST_PACKAGES)

# A fresh build directory gets Ninja (it keeps both cores busy across targets); an existing one
# keeps the generator it was configured with. UNITY=ON compiles each target as a few unity
# sources (CMAKE_UNITY_BUILD): on CI's 2 cores this halves the build time, since the heavy
# headers (RapidCheck, GoogleTest, nlohmann-json, CLI11, Eigen) are compiled once per batch.
UNITY ?= ON
CONFIGURE = cmake -S . -B $(BUILD) $(if $(wildcard $(BUILD)/CMakeCache.txt),,-G Ninja) \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=$(UNITY) -DPython_EXECUTABLE=$$(command -v python3)

build: deps
	$(CONFIGURE) -DQALG_CPU_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/qalg inspect complete:2
	./$(BUILD)/qalg rank complete:2
	./$(BUILD)/qalg lower complete:2 --widths 64,64 --out $(BUILD)/q2_plan.json

# Every test runs once. The CPU suites (algebra, rank, verify, cli, export, lowering, mpi,
# bad_inputs) are compiled and run only under ASan + UBSan (sanitize); the Release build compiles
# everything else (qalg, the Python module, the CUDA kernels, benchmarks) and runs the suites that
# need it or an external tool: proofs (Coq), oracle (GAP), python, notebooks, ptxas.
test: test-deps
	$(CONFIGURE) -DQALG_CPU_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest -LE gpu --output-on-failure -j $(JOBS) --timeout 900
	$(MAKE) --no-print-directory sanitize
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)

# Execute every notebook from a clean kernel with the module of $(BUILD)/python (also a ctest).
notebooks: test-deps build
	bash scripts/run_notebooks.sh $(BUILD)/python

# GPU conformance on a machine with an H200 (issue 6): builds gpu/ alone, writes results/gpu/.
gpu-check:
	bash scripts/gpu_check.sh results/gpu

# Hardening (issue 12). sanitize: the CPU test suite under ASan + UBSan (build-asan/).
# fuzz: every libFuzzer target (fuzz/, clang, build-fuzz/) for FUZZ_SECONDS each; make test runs
# both, the fuzzers for TEST_FUZZ_SECONDS each.
FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 10
.PHONY: sanitize fuzz
sanitize: test-deps
	JOBS=$(JOBS) UNITY=$(UNITY) bash scripts/sanitize.sh
fuzz: test-deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) UNITY=$(UNITY) bash scripts/fuzz.sh
