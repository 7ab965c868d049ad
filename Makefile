# exageostat: `make run` and `make test` install what is missing, build, and
# do their job. See README.md.

GO      ?= go
BIN     := bin/exageostat
TAGS    :=
# OpenBLAS picks AVX2 kernels when OPENBLAS_CORETYPE=Haswell is set; the
# binary re-executes itself without it, tests run with it unset.
unexport OPENBLAS_CORETYPE

.PHONY: all deps build run test bench vet fmt clean

all: build

deps:
	@./scripts/deps.sh

build: deps
	$(GO) build -trimpath $(if $(TAGS),-tags '$(TAGS)') -o $(BIN) ./cmd/exageostat

# The main job. Until `fit` exists: the Cholesky benchmark at a size that
# takes well under a minute on two cores.
run: build
	./$(BIN) bench cholesky --n 4096 --nb 512 --reps 3

vet: deps
	$(GO) vet ./...
	$(GO) vet -tags purego ./...

test: deps vet
	@test -z "$$(gofmt -l cmd pkg)" || { echo "gofmt needed:"; gofmt -l cmd pkg; exit 1; }
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -tags purego ./pkg/kernels/... ./pkg/cholesky/...
	$(GO) test -count=1 -race ./pkg/runtime/... ./pkg/cholesky/...
	$(GO) build -o /dev/null ./cmd/exageostat
	CGO_ENABLED=0 $(GO) build -tags purego -o /dev/null ./...

bench: build
	./$(BIN) bench runtime --tasks 100000
	./$(BIN) bench cholesky --n 8192 --nb 512 --reps 3

fmt:
	gofmt -w cmd pkg

clean:
	rm -rf bin
