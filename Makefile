# exageostat: `make run` and `make test` install what is missing, build, and
# do their job. See README.md.

GO      ?= go
BIN     := bin/exageostat
# Build tags: mpi when OpenMPI is installed (scripts/deps.sh installs it),
# decided when the recipe runs, after deps. `make build TAGS=` builds
# without MPI.
TAGS    ?= $$(pkg-config --exists ompi 2>/dev/null && echo mpi)
# How much `make test` fuzzes each reader of user input (the CSV readers,
# the fit config, the cluster file, the fit result), one target per run: a
# count of inputs, not a duration. A duration races Go 1.26's fuzz
# coordinator at its deadline (golang/go#75804: a spurious "context
# deadline exceeded" failure on a loaded machine, seen here once); 10000
# inputs take about 1-4 s a target on this box. Longer by hand:
# make test FUZZTIME=5m. The seed corpora are in each package's
# testdata/fuzz/<target>/, where `go test` finds them.
FUZZTIME ?= 10000x
# OpenBLAS picks AVX2 kernels when OPENBLAS_CORETYPE=Haswell is set; the
# binary re-executes itself without it, tests run with it unset.
unexport OPENBLAS_CORETYPE

.PHONY: all deps build run test bench vet fmt clean

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
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -tags purego ./pkg/kernels/... ./pkg/cholesky/... ./pkg/likelihood/...
	$(GO) test -count=1 -race ./pkg/runtime/... ./pkg/cholesky/... ./pkg/comm/... ./pkg/solve/... ./pkg/likelihood/... ./pkg/predict/... ./pkg/job/...
	$(GO) build -o /dev/null ./cmd/exageostat
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadCSV$$' -fuzztime=$(FUZZTIME) ./pkg/dataset
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadPair$$' -fuzztime=$(FUZZTIME) ./pkg/dataset
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzLoadFit$$' -fuzztime=$(FUZZTIME) ./pkg/config
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzLoadCluster$$' -fuzztime=$(FUZZTIME) ./pkg/config
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzReadFitResult$$' -fuzztime=$(FUZZTIME) ./pkg/job
	CGO_ENABLED=0 $(GO) build -tags purego ./pkg/runtime/... ./pkg/kernels/... ./pkg/tile/... ./pkg/cholesky/... ./pkg/likelihood/... ./pkg/matern/... ./pkg/dataset/...

bench: build
	./$(BIN) bench runtime --tasks 100000
	./$(BIN) bench cholesky --n 8192 --nb 1024 --reps 3
	./$(BIN) bench likelihood --n 3600 --nb 600 --predict 1000

fmt:
	gofmt -w cmd pkg

clean:
	rm -rf bin
