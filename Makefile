# dplab — see README.md. Every target works on a fresh machine with Go installed.
GO ?= go
# staticcheck, run by make lint (fetched from the Go module proxy on first use)
STATICCHECK_VERSION ?= v0.8.2
BENCH ?= .
BENCHCOUNT ?= 6

.PHONY: all build quickstart docs external-evidence equivalence test test-race test-process test-memory test-slurm test-properties test-golden test-browser test-long lint bench reproduce clean

all: lint test

## quickstart: AdaSSP vs non-private ridge on built-in synthetic data (seconds once built)
quickstart: build
	./dplab run experiments/quickstart.toml

## build: the dplab binary, with its git revision for the results' provenance
## even where GOFLAGS says -buildvcs=false (the first build also downloads and compiles the
## dependencies, gonum and gonum/plot: about 100 CPU-seconds, 1–2 minutes on
## 2 cores; later builds take seconds)
build:
	@echo "building ./dplab (a first build compiles the dependencies too: 1–2 minutes on 2 cores; later builds take seconds)"
	$(GO) build -buildvcs=auto -o dplab .

## test: the fast suite (-short: long checks are skipped or reduced, e.g. each
## mechanism's audit at 400 runs against a 20-fold under-charge; make test-long
## runs them in full)
test:
	$(GO) test -short -count=1 ./...

# the tests make test-race leaves out: each runs in one goroutine (or reaches others' goroutine
# code that tests kept here race), and make test runs it without -race.
#  - TestDatasetsVerifySharedFilesAreOK decompresses and hashes the shared data sets one file
#    after another: minutes under -race on a loaded machine.
#  - TestNoSpecWritesOutsideSpec, TestArchitecture*, TestLayering, TestOneStrictDecoder,
#    TestExpandCalledOnlyByPlan, TestOneStore read and type-check the module's source;
#    TestCitationKeys reads every .go and .md file for citation keys (8 CPU-s under -race, 0.5
#    without).
#  - TestReproductionDocsGenerated renders the docs from the committed evidence in one goroutine,
#    re-running the pre-processing probes for their table: most of the root package's time
#    under -race (it did not finish in 6 minutes under -race at load 30 here).
#  - TestAccount* and FuzzAccountCLI drive dplab account: flag parsing and one accountant query
#    at a time; the accountant's goroutines (the PLD's two directions, its FFT plan cache and
#    spectrum buffers, the calibrator's memo) are raced by RACE_ACCOUNTING below. FuzzAccountCLI's
#    seed corpus: 3 CPU-s under -race, and its 30-s limit per invocation failed under -race at
#    load 38 here.
#  - harness/run's TestLinearStatsMSEMatchesRows is arithmetic over a 141,691-row matrix.
#  - harness/run's TestRunStreamsPending counts 5·10⁷ pending trials of a cancelled run in one
#    goroutine (its workers see the cancelled context and stop at once; the runner's workers
#    and writer are raced by its other tests): 67 CPU-seconds under -race, the critical path of
#    make test-race (harness/run 105 s of its 130 s in CI).
#  - harness/run's TestExtremeTargetsRefusedOrAccounted runs one trial of one mechanism at a time
#    (Jobs 1) at extreme ε targets; its cost is objpert-amp's accountant calibrations at ε = 1e-300
#    in one goroutine: 17 CPU-s under -race, 40 % of harness/run's there (the runner's workers and
#    writer, and the plan's concurrent target checks, are raced by the other tests of harness/run
#    and of the root package; the calibrator's memo by RACE_ACCOUNTING).
#  - mechanisms' TestDGDIJCNN1LabelSplit is arithmetic over ijcnn1's 141,691 labels in one
#    goroutine: 6 CPU-s under -race, the slowest test of its package there.
#  - mechanisms' TestCalibrateAMPRuleFails is one accountant calibration (CalibrateAMP at
#    ε = 1e-8) in one goroutine: 11 CPU-seconds under -race, the slowest test of its package there;
#    the accountant's goroutines are raced by RACE_ACCOUNTING below.
RACE_SKIP = TestDatasetsVerifySharedFilesAreOK|TestNoSpecWritesOutsideSpec|TestArchitectureDocNamesExist|TestArchitectureCheckerCatchesDrift|TestLayering|TestOneStrictDecoder|TestExpandCalledOnlyByPlan|TestOneStore|TestReproductionDocsGenerated|TestAccount.*|TestLinearStatsMSEMatchesRows|TestRunStreamsPending|TestCalibrateAMPRuleFails|TestCitationKeys|FuzzAccountCLI|TestExtremeTargetsRefusedOrAccounted|TestDGDIJCNN1LabelSplit
# the accounting package's concurrency tests, the only ones of its package make test-race runs
# (the others take minutes under -race and start no goroutine the accountant does not)
RACE_ACCOUNTING = TestPLDConcurrentQueries|TestCalibratorConcurrentMemo|TestCalibrateConcurrentOnce
## test-race: the race detector over the concurrent runner, the store, the CLI, the mechanisms (and the external workers' pool) and the accountant's concurrent queries (short mode; the audit package's and most of the accountant's tests, minutes under -race, are left out, and RACE_SKIP's)
test-race:
	$(GO) test -race -short -count=1 -skip '^($(RACE_SKIP))$$' . ./harness/run ./results ./internal/... ./mechanisms ./mechanisms/external
	$(GO) test -race -short -count=1 -run '^($(RACE_ACCOUNTING))$$' ./mechanisms/accounting

# the tests make test-process runs (make test-long skips them in its own run)
PROCESS_TESTS = TestPeakRSSIsTheChilds|TestKillAndResume|TestSecondRunOnBusyDirRefused|TestSecondShardOnBusyShardRefused|TestRenderDuringRunRefused|TestWriteErrorReportsWhatIsStored|TestSignalStopsValidate|TestShardProcessesMergeMatchSingleRun|TestBuildsRecordRevision|TestDatasetsOneAtATimePeakRSS|TestMemoryBoundedByCells|TestMergeMemoryBounded
## test-process: the tests that build dplab and drive real processes (peak RSS measured as a child's own, kill and resume, two runs on one directory, a shard run twice at once, a render during a run, a full disk, signals, 4 shard processes and merge; the builds state their git revision; the peak RSS of datasets loaded one at a time, of runs and renders growing < 1 KB a trial, and of a merge < 512 bytes)
test-process:
	$(GO) test -count=1 -run '$(PROCESS_TESTS)' .

## test-memory: a 10⁶-trial run and its render as real processes, each under 300 MB peak RSS (1–2 minutes on 2 cores; a 1 GB store in the temporary directory)
test-memory:
	$(GO) test -count=1 -timeout 20m -run 'TestMillionTrialsMemory' .

## test-slurm: submit a spec as 4 shards to a single-host Slurm cluster started by .ci/slurm-local.sh (root, slurm-wlm and munge; skips without them)
test-slurm:
	DPLAB_SLURM_TEST=1 $(GO) test -count=1 -v -run 'TestSlurmIntegration' .

## test-properties: the full randomized property tests (200 PLD ledgers, 300 Laplace points; make test runs 10 and 60)
test-properties:
	$(GO) test -count=1 -run 'TestPLDProperties|TestLaplacePLD' ./mechanisms/accounting

## test-golden: every spec's --quick outputs against testdata/golden/quick (needs DPLAB_DATA)
test-golden:
	$(GO) test -count=1 -run 'TestQuickSpecOutputsGolden' .

## test-browser: 'dplab report' from --quick runs and an audit opened in headless chromium (images, console, TOC, sort, no sideways scroll, claims, screenshot)
test-browser:
	$(GO) test -count=1 -run 'TestReportInBrowser' -v .

# the packages and tests make test-long runs (.ci/run, right after make test, passes only
# the tests that reach testing.Short(), as listed by .ci/longtests, and their packages:
# the others would run the same tests again); LONG_RUN is a -run alternation, anchored here
LONG_PKGS ?= ./...
LONG_RUN ?= .*
## test-long: every test without -short: the full mechanism audits, the full property
## tests, the golden, browser and full-size claim tests (those need DPLAB_DATA; the browser
## test reads four of the golden test's --quick runs), then make test-process and
## test-memory in test binaries of their own (a child's peak RSS includes its parent's:
## after the root package's in-process runs every child read 1.5 GB), both at once (two test
## binaries, each measuring its own children's peak RSS; each one's output is printed whole
## when it ends); CI runs it
test-long:
	$(GO) test -count=1 -timeout 60m -run '^($(LONG_RUN))$$' -skip '^($(PROCESS_TESTS)|TestMillionTrialsMemory)$$' $(LONG_PKGS)
	$(MAKE) -j 2 --output-sync=target test-process test-memory

## lint: gofmt, go vet and staticcheck (the module and .ci's tools), and no global or v1 randomness outside internal/rngs
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./... ./.ci/longtests
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./... ./.ci/longtests
	@bad=$$(grep -rnE --include='*.go' '"math/rand"|[^.a-zA-Z]rand\.(Float64|NormFloat64|ExpFloat64|Int|IntN|Int64|Uint64|Perm|Shuffle|N)\(' . | grep -v '^./internal/rngs/' || true); \
	if [ -n "$$bad" ]; then echo "randomness outside a named stream:"; echo "$$bad"; exit 1; fi

## bench: Go benchmarks; compare runs with benchstat
bench:
	@mkdir -p bench
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(BENCHCOUNT) ./... | tee bench/latest.txt

## reproduce: every paper spec at full size, one after another, with each
## spec's plan estimate beside its measured wall time and the total (hours;
## needs DPLAB_DATA; resumes where it stopped); then refreshes the docs'
## evidence from the runs and regenerates the docs (dplab docs --refresh runs)
reproduce:
	scripts/reproduce.sh -j $(or $(J),2)

## docs: regenerate the marked sections of docs/reproduction/*.md and docs/external.md
## (numeric tables, figures, verdicts) and the evidence folders' summary.csv and claims.md
## from the committed evidence of full-size runs (docs/reproduction/evidence/<spec>/,
## examples/external/evidence/<spec>/), with the current specs and code; make test fails
## when they differ (docs/README.md)
docs:
	$(GO) run . docs
	$(GO) run . docs $(EXTERNAL_DOCS)

# The external mechanisms' example (docs/external.md): its spec's folder,
# its evidence's and the document.
EXTERNAL_DOCS = --specs examples/external --evidence examples/external/evidence docs/external.md

## external-evidence: rerun examples/external/compare.toml and audit.toml at full size
## from scratch (replacing runs/external_example/ and runs/external_audit/; needs a
## python3 with NumPy first on PATH) and refresh their committed evidence
## (examples/external/evidence/) and docs/external.md
external-evidence: build
	rm -rf runs/external_example runs/external_audit
	./dplab run examples/external/compare.toml -j $(or $(J),2)
	@# exits 1 by design: the under-noised worker's violation is what the audit shows
	-./dplab run examples/external/audit.toml -j $(or $(J),2)
	./dplab docs --refresh runs $(EXTERNAL_DOCS)

## equivalence: rerun each spec of SPECS (default: every spec with committed evidence) at
## full size into runs/equivalence/<spec>/ (resumable) and check it against its committed
## evidence: privacy quantities equal, means within a tenth of the CI half-width or no
## difference by Welch's test (Holm at family-wise 1%), claims' verdicts unchanged; writes
## runs/equivalence/<spec>/equivalence.json. Run it before regenerating goldens
## (docs/README.md); e.g. make equivalence SPECS="gaussmix_fig3 objpert_fig2"
equivalence: build
	./dplab equivalence -j $(or $(J),2) $(SPECS)

## clean: the binary and every run's outputs (runs/<name>/, dplab run's default)
clean:
	rm -f dplab
	rm -rf runs/
