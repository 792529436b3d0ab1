package audit

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/datasets/preprocess"
	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/mechanisms"
)

// Pipeline is an auditable mechanism behind pre-processing: the mechanism
// block of an experiment spec (its preprocess steps and [mechanism.pipeline]
// table, as a spec writes them) and the pair's setup.
type Pipeline struct {
	Mechanism string
	Block     string // TOML lines of the [[mechanism]] block after its name
	Setup     Setup
}

// Pipelines lists the audited pipelines by audit name.
var Pipelines = map[string]Pipeline{
	// 20 distinct rows on a half circle of radius 0.5 (spacing ≈ 0.08 > 8η)
	// keep every point's 4η-neighbourhood to one row, the declared
	// max_local = 1; the canary is far from all of them.
	"dpgd+quantize": {Mechanism: "dpgd", Block: `preprocess = [{ name = "quantize", eta = 0.005 }]
[mechanism.pipeline]
collection = { max_local = 1 }`,
		Setup: Setup{Task: datasets.Binary, Rows: 20, Dim: 3, Layout: LayoutCircle, Params: []string{"iterations=1", "clip=0.5", "radius=100", "output=last"},
			Note: "dpgd's one-step pair behind η-quantization (η = 0.005) with the declared collection max_local = 1 (safe sensitivities); the pipeline's ledger, [HSS24] Theorem 2 with dpgd's smooth-RDP curve, is calibrated to the target. The pair moves one row, so the audit exercises the mechanism, not the pre-processing's own amplification of a change"}},
}

// newPipelineTarget builds the audit target of pipeline p: the experiment
// spec's pipeline code (spec.Pipeline: steps, collection, sensitivities, the
// Budget.Wrap that charges them) in front of the registered mechanism.
func newPipelineTarget(ctx context.Context, name string, p Pipeline, params []string, epsilon, delta float64) (*Target, error) {
	e, err := mechanisms.Lookup(p.Mechanism)
	if err != nil {
		return nil, err
	}
	kv, err := mergeParams(p.Setup.Params, params)
	if err != nil {
		return nil, err
	}
	m, _, err := e.Build(DecodeParams(kv))
	if err != nil {
		return nil, err
	}
	setup, err := p.withPrepare(kv)
	if err != nil {
		return nil, fmt.Errorf("audit: %s: %w", name, err)
	}
	t, err := NewTargetFor(ctx, name, m, setup, epsilon, delta)
	if err != nil {
		return nil, err
	}
	t.Params = kv
	return t, nil
}

// withPrepare returns p's setup with the pipeline's preparation: the steps
// parsed from a minimal experiment spec holding p's mechanism block, then,
// per dataset, as the runner does (experiments/run pipeline.go): rows
// clipped to the unit ball, the steps fitted on them, the declared
// collection checked, the sensitivities at the training size, and the
// budget's Wrap charging them.
func (p Pipeline) withPrepare(kv []string) (Setup, error) {
	var params []string
	for _, x := range kv {
		k, v, _ := strings.Cut(x, "=")
		if _, err := fmt.Sscan(v, new(float64)); err == nil || v == "true" || v == "false" {
			params = append(params, fmt.Sprintf("%s = %s", k, v))
		} else {
			params = append(params, fmt.Sprintf("%s = %q", k, v))
		}
	}
	task := "synthetic-logistic"
	if p.Setup.Task == datasets.Regression {
		task = "synthetic-linear"
	}
	src := fmt.Sprintf("name = \"audit-pipeline\"\nseed = 1\ntrials = 1\nepsilon = [1]\ndelta = 1e-5\n\n[[dataset]]\nname = %q\n\n[[mechanism]]\nname = %q\nparams = { %s }\n%s\n",
		task, p.Mechanism, strings.Join(params, ", "), p.Block)
	s, err := spec.Parse("audit-pipeline.toml", []byte(src))
	if err != nil {
		return Setup{}, err
	}
	pl := s.Mechanisms[0].Preprocessing()
	if pl == nil {
		return Setup{}, fmt.Errorf("the block declares no pre-processing")
	}
	setup := p.Setup
	setup.prepare = func(d *datasets.Dataset, b mechanisms.Budget, m mechanisms.Mechanism) (*datasets.Dataset, mechanisms.Budget, error) {
		clipped := &datasets.Dataset{Name: d.Name, Task: d.Task, X: preprocess.ClipRows(d.X), Y: d.Y}
		f, err := pl.Pre.Fit(clipped.X)
		if err != nil {
			return nil, b, err
		}
		train, err := f.Output().Dataset(clipped, false)
		if err != nil {
			return nil, b, err
		}
		if err := f.Check(pl.Collection); err != nil {
			return nil, b, fmt.Errorf("the pair violates the declared collection: %w", err)
		}
		n := train.Rows()
		sens, err := pl.Sensitivity(n)
		if err != nil {
			return nil, b, err
		}
		b.Wrap = pl.Wrap(p.Mechanism, m, spec.Charge{Sens: sens, N: n})
		return train, b, nil
	}
	return setup, nil
}

// circleRow returns row i of n distinct points 0.5·(cos φᵢ, sin φᵢ) on the
// first two coordinates, φᵢ spread over [0, π).
func circleRow(i, n int) (float64, float64) {
	phi := math.Pi * float64(i) / float64(n)
	return 0.5 * math.Cos(phi), 0.5 * math.Sin(phi)
}
