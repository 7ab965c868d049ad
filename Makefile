# exageostat: `make run` and `make test` install what is missing, build, and
# do their job. See README.md.

GO      ?= go
BIN     := bin/exageostat
# Build tags: mpi when OpenMPI is installed, gdal when GDAL is
# (gdal-config; scripts/deps.sh installs both), decided when the recipe
# runs, after deps. `make build TAGS=` builds without MPI and GDAL.
TAGS    ?= $$(pkg-config --exists ompi 2>/dev/null && echo mpi) $$(command -v gdal-config >/dev/null && echo gdal)
# How much `make test` fuzzes each reader of user input (the CSV readers,
# the fit config, the cluster file, the fit result, the checkpoint, the
# performance-model file, the trace, the sets file), one target per run: a
# count of inputs, not a duration. A duration races Go 1.26's fuzz
# coordinator at its deadline (golang/go#75804: a spurious "context
# deadline exceeded" failure on a loaded machine, seen here once); 10000
# inputs take about 1-4 s a target on this box. Longer by hand:
# make test FUZZTIME=5m. The seed corpora are in each package's
# testdata/fuzz/<target>/, where `go test` finds them.
FUZZTIME ?= 10000x
# A package's tests may take longer than go test's default 10 minutes on a
# loaded shared box (the suite takes about 6 minutes in all when quiet);
# the limit is there to turn a hang into a failure, not to time the suite.
TESTTIMEOUT ?= 40m
# The race detector and the pure-Go build re-run packages whose tests the
# first pass already ran; these tests add nothing there and cost minutes
# (2-core Intel Xeon, load 4-9): the profile intervals and pictures (88,
# 50, 42 and 14 s under -race) run fits whose concurrency is the runtime's,
# which the race pass checks in its own packages; TestApproxNeedMeasured
# (25 s) and TestDistributedMemory (32 s in pure Go) measure the runtime's
# tile-buffer peaks, which depend on neither the BLAS kernels nor the race
# detector. All of them run in the first pass.
RACESKIP   := ^(TestProfileIntervalsAgainstR|TestProfileIntervalsWithNugget|TestPictures|TestPlotLayerScale|TestApproxNeedMeasured)$$
PUREGOSKIP := ^(TestApproxNeedMeasured|TestDistributedMemory)$$
# The Python (python/) and R (r/) front-ends are tested against a binary
# built here (with MPI when TAGS has it); Debian's interpreter, whose
# numpy/pandas/pytest scripts/deps.sh installs.
PYTHON  ?= /usr/bin/python3
FRONTBIN := bin/test/exageostat
RLIB     := bin/test/rlib
# OpenBLAS picks AVX2 kernels when OPENBLAS_CORETYPE=Haswell is set; the
# binary re-executes itself without it, tests run with it unset.
unexport OPENBLAS_CORETYPE

.PHONY: all deps build run test bench vet fmt clean cuda cuda-check gpu-pack check-r docs

all: build

deps:
	@./scripts/deps.sh

# The commit and whether the tree has changes, stamped into the binary
# (exageostat --version, the JSON results, bench headers).
STAMP   := -X github.com/exageostat/exageostat/pkg/provenance.commit=$$(git rev-parse HEAD 2>/dev/null) \
	-X github.com/exageostat/exageostat/pkg/provenance.modified=$$(git diff --quiet HEAD 2>/dev/null || echo true)

build: deps
	$(GO) build -trimpath -tags "$(TAGS)" -ldflags "$(STAMP)" -o $(BIN) ./cmd/exageostat

# The main job: the embedded default fit (N=1600 simulated with
# theta = (1, 0.1, 0.5), all three parameters estimated).
run: build
	./$(BIN) fit

vet: deps
	$(GO) vet ./...
	$(GO) vet -tags purego ./...
	$(GO) vet -tags mpi ./...

test: deps vet
	@test -z "$$(gofmt -l cmd pkg)" || { echo "gofmt needed:"; gofmt -l cmd pkg; exit 1; }
	$(GO) run ./scripts/funclen cmd pkg
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) ./...
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) -tags purego -skip '$(PUREGOSKIP)' ./pkg/linalg/... ./pkg/kernels/... ./pkg/cholesky/... ./pkg/likelihood/...
	@if command -v gdal-config >/dev/null; then \
	  set -x; $(GO) vet -tags gdal ./pkg/gdal/ ./pkg/job/ ./cmd/exageostat/ && \
	  $(GO) test -count=1 -timeout $(TESTTIMEOUT) -tags gdal ./pkg/gdal/ && \
	  $(GO) test -count=1 -timeout $(TESTTIMEOUT) -tags gdal -run 'Raster|Block|Walkthrough|GeoPackage|Plot' ./pkg/job/; \
	else echo "make test: no gdal-config: the GIS tests (-tags gdal) not run (scripts/deps.sh installs libgdal-dev)"; fi
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) -race -skip '$(RACESKIP)' ./pkg/runtime/... ./pkg/cholesky/... ./pkg/comm/... ./pkg/solve/... ./pkg/likelihood/... ./pkg/predict/... ./pkg/job/...
	$(GO) build -o /dev/null ./cmd/exageostat
	$(GO) build -tags "$(TAGS)" -o $(FRONTBIN) ./cmd/exageostat
	cd python && EXAGEOSTAT_BIN=$(CURDIR)/$(FRONTBIN) $(PYTHON) -m pytest -q -p no:cacheprovider tests
	rm -rf $(RLIB) && mkdir -p $(RLIB) && R CMD INSTALL --no-test-load -l $(RLIB) r >/dev/null
	cd r/tests && EXAGEOSTAT_BIN=$(CURDIR)/$(FRONTBIN) EXAGEOSTAT_REPO=$(CURDIR) R_LIBS=$(CURDIR)/$(RLIB) Rscript testthat.R
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadCSV$$' -fuzztime=$(FUZZTIME) ./pkg/dataset
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadPair$$' -fuzztime=$(FUZZTIME) ./pkg/dataset
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzLoadFit$$' -fuzztime=$(FUZZTIME) ./pkg/config
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzLoadCluster$$' -fuzztime=$(FUZZTIME) ./pkg/config
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadFitResult$$' -fuzztime=$(FUZZTIME) ./pkg/job
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzRead$$' -fuzztime=$(FUZZTIME) ./pkg/vecchia/neighbors
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadCheckpoint$$' -fuzztime=$(FUZZTIME) ./pkg/job
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzRead$$' -fuzztime=$(FUZZTIME) ./pkg/perfmodel
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadChrome$$' -fuzztime=$(FUZZTIME) ./pkg/trace
	CGO_ENABLED=0 $(GO) build -tags purego ./pkg/runtime/... ./pkg/linalg/... ./pkg/kernels/... ./pkg/tile/... ./pkg/cholesky/... ./pkg/likelihood/... ./pkg/matern/... ./pkg/dataset/...

# R CMD check of the R front-end (r/), its tests and examples run against
# the binary built here; no PDF manual (no LaTeX in deps).
check-r: deps
	$(GO) build -tags "$(TAGS)" -o $(FRONTBIN) ./cmd/exageostat
	rm -rf bin/test/check && mkdir -p bin/test/check
	cd bin/test/check && R CMD build $(CURDIR)/r && EXAGEOSTAT_BIN=$(CURDIR)/$(FRONTBIN) \
	  EXAGEOSTAT_REPO=$(CURDIR) _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual exageostat_*.tar.gz

bench: build
	./$(BIN) bench runtime --tasks 100000
	./$(BIN) bench cholesky --n 8192 --nb 1024 --reps 3
	./$(BIN) bench likelihood --n 3600 --nb 600 --predict 1000

# The CUDA build (see README.md, GPU): installs CUDA 11.8 from Debian's
# non-free components (idempotent) and builds bin/exageostat-cuda, which
# `exageostat fit --gpus N` hands over to on a machine with N devices.
# It cannot start without a GPU (gorgonia.org/cu exits in its init).
CUDA_BIN := bin/exageostat-cuda

cuda: deps
	./scripts/install-cuda.sh
	$(GO) build -trimpath -tags "cuda $(TAGS)" -ldflags "$(STAMP)" -o $(CUDA_BIN) ./cmd/exageostat

# What can be checked of the CUDA build without a GPU: vet and build with
# the tag, the tests of the packages that do not import gorgonia.org/cu
# (checked below), the GPU tests compiled (not run: gorgonia.org/cu would
# exit), and the plain binary's --gpus
# (on a GPU-less machine: exit 2, one line naming what is missing; with a
# device, the CUDA build's one line that its GPU workers are not wired in).
CUDA_NOGPU_PKGS := ./pkg/gpu/ ./pkg/cudalib/

cuda-check: build cuda
	$(GO) vet -tags cuda ./...
	@for p in $(CUDA_NOGPU_PKGS); do \
	  if $(GO) list -tags cuda -deps $$p | grep -qx 'gorgonia.org/cu'; then echo "cuda-check: $$p imports gorgonia.org/cu: its tests cannot run without a GPU"; exit 1; fi; \
	done
	$(GO) test -count=1 -tags cuda $(CUDA_NOGPU_PKGS)
	$(GO) test -c -tags cuda -o bin/cuda-kernels.test ./pkg/cuda/
	@out=$$(./$(BIN) fit --gpus 1 2>&1); rc=$$?; \
	  echo "$$out" | tail -1; \
	  test $$rc -eq 2 || { echo "cuda-check: fit --gpus 1 without a GPU: exit $$rc, want 2"; exit 1; }; \
	  test "$$(echo "$$out" | wc -l)" -eq 1 || { echo "cuda-check: fit --gpus 1: want one line"; exit 1; }; \
	  echo "$$out" | grep -Eq '^exageostat: fit: --gpus 1: no CUDA (device|driver)' || { echo "cuda-check: fit --gpus 1: unexpected message"; exit 1; }; \
	  echo "cuda-check: fit --gpus 1: exit 2 with the message above"

# Everything a GPU machine needs (bin/exageostat-cuda, its non-CUDA shared
# libraries, the kernel test binary, scripts/gpu-checks.sh) in gpu-pack/,
# under 64 MiB. Built without MPI: one rank on one GPU machine, which has
# no mpirun.
gpu-pack: deps
	./scripts/install-cuda.sh
	$(GO) build -trimpath -tags cuda -ldflags "$(STAMP)" -o $(CUDA_BIN) ./cmd/exageostat
	$(GO) test -c -tags cuda -o bin/cuda-kernels.test ./pkg/cuda/
	./scripts/pack-gpu.sh

fmt:
	gofmt -w cmd pkg

# The command reference, generated from the commands' flags and help
# (cobra/doc): markdown in docs/commands, man pages in docs/man. make test
# fails when it is not current (TestCommandReference).
docs:
	$(GO) test -count=1 -run '^TestCommandReference$$' ./cmd/exageostat -update-reference

clean:
	rm -rf bin gpu-pack
