// Package accounting turns what a mechanism did into a privacy guarantee.
//
// Mechanisms describe their privacy cost as immutable events (Gaussian,
// Laplace, PoissonSampledGaussian, ObjectivePerturbation, AMP, GaussMix, RGM,
// RepeatAndSelect, SelfComposed, Composed, NoOp, NonPrivate, PureDP, and
// ApproxDP for an (ε, δ) guarantee given by a theorem or a failure
// probability), in the style of dp_accounting's DpEvent algebra.
// Preprocessed is a mechanism run on data pre-processed by a non-private,
// data-dependent step ([HSS24]): its RDP is the best of Theorem 2's forms
// (with the mechanism's smooth-RDP curve, SRDP) and group privacy. Accountants evaluate a ledger of events:
//
//   - "rdp": Rényi DP ([Mir17]) on an order set — dp_accounting's grid,
//     Opacus' orders, or integers — optionally refined by a continuous 1-D
//     search over α, converted to (ε, δ) with [BBG+20] Thm 21 / [CKS20]
//     Prop. 12. It supports every event.
//   - "pld": privacy loss distributions discretised pessimistically by
//     connect-the-dots ([DGK+22]) and composed by FFT, for Gaussian, Laplace,
//     the Poisson-subsampled Gaussian (both add and remove directions) and
//     objective perturbation.
//   - "exact": closed-form tight privacy profiles (composed Gaussians via
//     [BW18]/[DRS19], objective perturbation via [RKW23] Thm 3.1).
//
// Calibrator inverts an accountant: the smallest noise whose accounted ε
// meets a target, memoised by the event family itself (its events at two
// reference noise values, encoded field by field), never by a hand-built key. Closed forms of the four papers dplab reproduces
// (ObjPertRDP, ObjPertDelta, KiferEpsilon, GaussMixRDP, Sheffet2019Epsilon,
// GaussMixTheorem1Epsilon, RGMEpsilon, CalibrateAMP, …) are exported for the
// mechanisms and figures that need them.
//
// # Events: one file per kind
//
// Each kind lives in its own event_<kind>.go: the type, Kind, Validate,
// MarshalJSON (the "kind" tag first, withKind), its neighbouring relation
// and its RDP curve (leafEvent, which registerLeaf requires: a leaf without
// them does not compile), the PLD and exact accountants' methods (pld,
// exact) when they evaluate it, and an init that registers it with a valid
// example in the kind table (event_kinds.go), and, when the kind is to be
// an EVENT of "dplab account", its command-line form there (registerForm:
// name, flags, how they build the event). The table drives JSON decoding
// and the command's events (Request, Answer: query.go), and the
// conformance tests (kinds_test.go: JSON round trip, validation, every
// accountant) enumerate it. Composed and SelfComposed are the
// composition algebra: walk (event.go) is the one traversal, visiting the
// leaves with their multiplicities; an accountant evaluates a leaf iff the
// leaf implements its interface (rdpEvent, pldEvent, exactEvent), and
// reports any other by name (*UnsupportedError).
//
// Every event encodes as a JSON object with its "kind" first and its fields
// in snake_case; UnmarshalEvent decodes through the kind table, strictly
// (unknown kinds and keys are errors), then validates. A leaf without a
// decodeJSON method is decoded field by field (fieldDecoder). Leaves exposes
// walk to other packages. The Calibrator's memo relies on every event's
// JSON holding every parameter its accounting reads (checked for each
// kind's example by TestEventKinds' JSON round trip).
//
// # Adding an event kind
//
// Write one file, event_<kind>.go (in this package: the Event interface is
// sealed). It holds the exported value type (json tags in snake_case; its
// doc defines the mechanism and cites the formula) with Kind, isEvent,
// Validate, MarshalJSON (withKind(e.Kind(), plain(e))), relation ("" to
// adopt the ledger's relation, or a Relation* constant) and rdp (an rdpTerm)
// — registerLeaf does not compile without them
// (TestLeafWithoutRDPDoesNotCompile) — plus pld (a pldTerm) and exact (one
// of exactTerm's existing kinds) when those accountants evaluate it,
// decodeJSON for nested events or enumerations, wrapped for a leaf built on
// another event, and an init calling registerLeaf with a valid example.
// Picked up: TestEventKinds (the example validates, round-trips through
// JSON byte for byte, and every accountant evaluates it or rejects it with
// an *UnsupportedError), TestEventJSONRoundTrip, UnmarshalEvent, records,
// dplab render, the calibration memo and dplab account json
// (TestThrowawayEventKind shows the whole pattern on a test-only kind). A
// registerForm call in the same file makes it an event of dplab account
// (its flags, help line and --calibrate parameter; TestAccountNewKindByOneFile).
// go generate ./mechanisms/accounting then regenerates the kinds table of
// docs/accounting.md and docs/event.schema.json (TestKindsDocGenerated,
// TestEventSchemaGenerated). Not automatic: a test of the formula against
// an oracle (golden vectors, the paper's tables or the definition; e.g.
// golden_test.go, papers_test.go); its row in docs/accounting.md's
// hand-written table of events (no test checks it); a closed form that is
// not one of exactTerm's kinds (exact.go) or a new composite (walk in
// event.go, registerComposite) is a second file; parameters computed from
// the training size n need the runner to record the public-n assumption
// (hasSampledGaussian in harness/run/assumptions.go).
//
// # Invariants
//
//   - A reported ε is never smaller than the guarantee the composed events
//     certify: every evaluator is exact or an upper bound (the sampled
//     Gaussian at fractional orders is dp_accounting's absolute-value series,
//     an upper bound, unless Config.SGM is "exact"; PLDs are pessimistic).
//   - Calibrate never returns a noise level whose ε exceeds the target: its
//     answer is an evaluated point that meets the target.
//   - +Inf means no guarantee; NaN never escapes (it becomes an error).
//   - Compose is atomic and Check is its dry run: an unsupported sub-event is
//     reported by name (*UnsupportedError) before anything changes.
//   - Every ledger has one neighbouring relation (add/remove unless an event
//     fixes another); events with different fixed relations do not compose.
//   - The package's variables are tables it never writes but for three:
//     the event kind table, event_kinds.go's eventKinds, filled by init
//     functions, and two caches that change no result: fft.go's planCache
//     (the two FFT plans last used, read-only once built, behind a mutex)
//     and pld_compose.go's spectrumBuffers (transform work buffers by
//     length, a sync.Pool each). No table is exported (order sets are
//     functions returning new slices); memoisation of results lives in
//     accountants and Calibrators.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md. The golden vectors come from dp_accounting 0.6.0
// (google/differential-privacy b5b0286, python/dp_accounting).
package accounting
