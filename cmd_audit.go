package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dplab/dplab/audit"
)

var auditCommand = &command{
	Name:      "audit",
	UsageLine: "audit MECHANISM [--params k=v,...] --epsilon E --delta D [--trials N] [--confidence 0.95] [--json] | audit SPEC.toml [dplab run's flags]",
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

An audit grid (a spec with an [audit] table: mechanisms × an ε grid, see
experiments/audits/audit_grid.toml) is an ordinary spec: dplab run runs it,
each (mechanism, ε) cell's audit one trial stored in the run's trials.jsonl,
and renders its "audit" figure and table; "dplab audit SPEC.toml" is the
same as "dplab run SPEC.toml" (with dplab run's flags).`,
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
	for _, a := range args {
		if strings.HasSuffix(a, ".toml") && !strings.HasPrefix(a, "-") {
			return auditSpecAlias(ctx, args, stdout, stderr)
		}
	}
	fs := newFlagSet("audit", stderr)
	params := fs.String("params", "", "mechanism params as k=v,k=v (override the audit's defaults)")
	epsilon := fs.Float64("epsilon", math.NaN(), "the claimed ε (the budget the mechanism is asked to meet)")
	delta := fs.Float64("delta", math.NaN(), "the claimed δ")
	trials := fs.Int("trials", 20000, "runs per side (half choose the test, half evaluate it)")
	confidence := fs.Float64("confidence", 0.95, "probability with which the lower bound holds")
	jobs := fs.Int("j", 0, "concurrent runs (default: all cores)")
	seed := fs.String("seed", "1", "seed root of the runs' randomness")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("audit needs exactly one MECHANISM or SPEC.toml (got %d arguments)", len(pos))
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

// auditSpecAlias runs an audit grid (a spec with an [audit] table) as
// dplab run does, which it is: each (mechanism, ε) cell's audit is a trial
// stored in the run's store. The flags are dplab run's.
func auditSpecAlias(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fmt.Fprintln(stderr, "note: dplab audit SPEC.toml is dplab run SPEC.toml (an audit grid is an ordinary spec with an [audit] table)")
	return cmdRun(ctx, args, stdout, stderr)
}
