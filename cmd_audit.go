package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dplab/dplab/audit"
	"github.com/dplab/dplab/harness/run"
	"github.com/dplab/dplab/results"
)

var auditCommand = &command{
	Name:      "audit",
	UsageLine: "audit MECHANISM [--params k=v,...] --epsilon E --delta D [--trials N] [--confidence 0.95] [--json] | audit SPEC.toml [--out DIR] [--quick] [-j N]",
	Short:     "measure a lower bound on a mechanism's ε empirically (privacy audit)",
	Long: `Audit runs MECHANISM (a registered private mechanism, or "gaussian", the
reference Gaussian mechanism, an audited pipeline such as "dpgd+quantize", or
a further pair of a mechanism such as "ptr-pca-dpgd/gradient")
TRIALS times on each of two neighbouring datasets
built for its neighbouring relation (a canary row at the norm bound), chooses a
threshold test on the canary projection of the release with half of the runs,
and bounds ε from below with the other half (Clopper–Pearson on the test's
false-positive and false-negative rates, at the given confidence). A lower
bound above the claimed ε refutes the claim (exit code 1); one below it
certifies nothing. docs/trust.md describes the pairs and what an audit shows.
Progress goes to stderr; all cores are used.

With an audit spec (a .toml file: mechanisms × an ε grid, see
experiments/audits/audit_grid.toml), every (mechanism, ε) cell not yet stored
in DIR/audits.jsonl is audited and stored, then DIR/figures/audit.png|svg
(claimed against audited ε) and DIR/tables/audit.md|csv are written; DIR is
` + run.DefaultRoot + `/<name> unless --out is given, and must be new, empty or an audit's
(holding audits.jsonl); one audit at a time may use it. An interrupted audit
loses no stored cell: rerun it to resume.`,
	Run: cmdAudit,
}

// auditReport is the --json output.
type auditReport struct {
	Mechanism      string             `json:"mechanism"`
	Params         []string           `json:"params"`
	Relation       string             `json:"relation"`
	Pair           string             `json:"pair"`
	Statistic      string             `json:"statistic"`
	TargetEpsilon  float64            `json:"target_epsilon"`
	ClaimedEpsilon float64            `json:"claimed_epsilon"`
	Delta          float64            `json:"delta"`
	LowerBound     float64            `json:"lower_bound"`
	Ratio          float64            `json:"ratio"`
	Confidence     float64            `json:"confidence"`
	Trials         int                `json:"trials"`
	Verdict        string             `json:"verdict"`
	Noise          map[string]float64 `json:"noise,omitempty"`
	Test           *audit.Outcome     `json:"test"`
}

func cmdAudit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit", stderr)
	params := fs.String("params", "", "mechanism params as k=v,k=v (override the audit's defaults)")
	epsilon := fs.Float64("epsilon", math.NaN(), "the claimed ε (the budget the mechanism is asked to meet)")
	delta := fs.Float64("delta", math.NaN(), "the claimed δ")
	trials := fs.Int("trials", 20000, "runs per side (half choose the test, half evaluate it)")
	confidence := fs.Float64("confidence", 0.95, "probability with which the lower bound holds")
	jobs := fs.Int("j", 0, "concurrent runs (default: all cores)")
	seed := fs.String("seed", "1", "seed root of the runs' randomness")
	asJSON := fs.Bool("json", false, "print one JSON object")
	out := fs.String("out", "", "result directory of an audit spec (default "+run.DefaultRoot+"/<name>)")
	quick := fs.Bool("quick", false, "use the audit spec's [quick] runs")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("audit needs exactly one MECHANISM or SPEC.toml (got %d arguments)", len(pos))
	}
	if strings.HasSuffix(pos[0], ".toml") {
		return auditSpec(ctx, pos[0], *out, *quick, *jobs, stdout, stderr)
	}
	if math.IsNaN(*epsilon) || math.IsNaN(*delta) {
		return usagef("audit needs --epsilon and --delta")
	}
	if err := audit.CheckTrials("--trials", *trials); err != nil {
		return usagef("%v", err)
	}
	if !(*confidence > 0 && *confidence < 1) {
		return usagef("--confidence = %v: must be in (0, 1)", *confidence)
	}
	var kv []string
	if s := strings.TrimSpace(*params); s != "" {
		kv = strings.Split(s, ",")
	}
	t, err := audit.NewTarget(ctx, pos[0], kv, *epsilon, *delta)
	if err != nil {
		return badInput(err)
	}
	o, err := audit.Run(ctx, t.Sample, audit.Options{Trials: *trials, Confidence: *confidence, Delta: *delta,
		Seed: *seed, Jobs: *jobs, Progress: stderr, Label: t.Mechanism})
	if err != nil {
		return err
	}
	rep := auditReport{Mechanism: t.Mechanism, Params: t.Params, Relation: t.Relation, Pair: t.Pair, Statistic: t.Statistic,
		TargetEpsilon: t.Epsilon, ClaimedEpsilon: t.Claimed, Delta: t.Delta, LowerBound: o.LowerBound,
		Ratio: o.LowerBound / t.Claimed, Confidence: o.Confidence, Trials: o.Trials, Noise: t.Noise, Test: o,
		Verdict: "not refuted"}
	if o.LowerBound > t.Claimed {
		rep.Verdict = "VIOLATION"
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "mechanism    %s %s\n", t.Mechanism, strings.Join(t.Params, ","))
		fmt.Fprintf(stdout, "relation     %s\npair         %s\nstatistic    %s\n", t.Relation, t.Pair, t.Statistic)
		fmt.Fprintf(stdout, "claimed      ε = %.4g (as its ledger accounts it; target %.4g), δ = %g\n", t.Claimed, t.Epsilon, t.Delta)
		fmt.Fprintf(stdout, "lower bound  ε ≥ %.4g with confidence %g (ratio to claimed %.3f)\n", o.LowerBound, o.Confidence, rep.Ratio)
		fmt.Fprintf(stdout, "test         D₁ when %+d·s ≥ %.6g, chosen on %d runs per side, evaluated on %d: FP = %d, FN = %d, ᾱ = %.4g, β̄ = %.4g\n",
			o.Sign, o.Threshold, o.Trials-o.Evaluation, o.Evaluation, o.FP, o.FN, o.AlphaUpper, o.BetaUpper)
		fmt.Fprintf(stdout, "verdict      %s\n", rep.Verdict)
	}
	if rep.Verdict == "VIOLATION" {
		return fmt.Errorf("%s: audited lower bound ε ≥ %.4g exceeds the claimed ε = %.4g", t.Mechanism, o.LowerBound, t.Claimed)
	}
	return nil
}

// auditSpec runs an audit spec and renders its figure and table.
func auditSpec(ctx context.Context, path, out string, quick bool, jobs int, stdout, stderr io.Writer) error {
	s, err := audit.LoadSpec(path)
	if err != nil {
		return badInput(err)
	}
	if out == "" {
		name := s.Name
		if quick {
			name += "-quick"
		}
		out = filepath.Join(run.DefaultRoot, name)
	}
	// As for dplab run: the spec copy, figures and tables never overwrite
	// another directory's files.
	if err := results.CheckDirFor(out, "an audit result directory", audit.ResultsFile, audit.LockFile); err != nil {
		var foreign *results.NotResultDirError
		if _, serr := os.Stat(filepath.Join(out, results.TrialsFile)); errors.As(err, &foreign) && serr == nil {
			foreign.Reason = fmt.Sprintf("it is a run's (it holds %s)", results.TrialsFile)
		}
		return badInput(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// One audit at a time per directory, as for dplab run: a second would
	// audit the same cells and could cut the first's line being appended.
	lock, err := results.LockDir(out, audit.LockFile)
	var busy *results.BusyError
	if errors.As(err, &busy) {
		busy.Holder = "dplab audit"
	}
	if err != nil {
		return storeError(err)
	}
	defer lock.Unlock()
	res, err := audit.RunSpec(ctx, s, audit.RunOptions{Dir: out, Quick: quick, Jobs: jobs, Progress: stderr})
	if err != nil {
		return storeError(err)
	}
	paths, err := audit.Render(s, res, out)
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	if err != nil {
		return storeError(err)
	}
	var refuted []string
	for _, r := range res {
		if r.LowerBound > r.ClaimedEpsilon {
			refuted = append(refuted, fmt.Sprintf("%s at ε = %g (lower bound %.4g > claimed %.4g)", r.Label, r.TargetEpsilon, r.LowerBound, r.ClaimedEpsilon))
		}
	}
	if len(refuted) > 0 {
		return fmt.Errorf("VIOLATION: %s", strings.Join(refuted, "; "))
	}
	return nil
}
