package report

import (
	"context"
	"fmt"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// iterativeParams configures "test-iterative" (private) and
// "test-iterative-ref" (non-private), tiny deterministic iterative fits
// registered for this package's tests only, so that the iterations and
// diagnostics kinds have a trace and grouped diagnostics to show before any
// real iterative mechanism exists.
//
// Fit returns the zero model, a trace "excess_objective" of Steps + 1
// values (1 + Jitter·u)·Scale/(t + 1), t = 0 … Steps, with u uniform in
// [0, 1) drawn once per trial from the "noise" stream (Jitter = 0: exactly
// Scale/(t + 1)), diagnostics "n" (training rows) and, per node k = 1, 2,
// "nodek/n" (⌊n/2⌋ and the rest) and "nodek/eta" = k·Scale, noise
// "nodek/gamma" = 10·k; the private one charges one Gaussian with σ = Sigma
// (not calibrated) and states Scope as its target scope.
type iterativeParams struct {
	Steps  int     `toml:"steps"`  // 0 means 10
	Jitter float64 `toml:"jitter"` // ≥ 0
	Scale  float64 `toml:"scale"`  // 0 means 1
	Sigma  float64 `toml:"sigma"`  // 0 means 1
	Split  string  `toml:"split"`  // only labels the runs (a param to panel by)
	Scope  string  `toml:"scope"`  // Release.TargetScope
}

func (p iterativeParams) Validate() error {
	if p.Steps < 0 || p.Jitter < 0 || p.Scale < 0 || p.Sigma < 0 {
		return fmt.Errorf("steps, jitter, scale and sigma must be ≥ 0")
	}
	return nil
}

type iterativeMech struct {
	p       iterativeParams
	private bool
}

func init() {
	for _, private := range []bool{true, false} {
		name, title := "test-iterative", "test: iterative"
		if !private {
			name, title = "test-iterative-ref", "test: iterative reference"
		}
		mechanisms.Register(mechanisms.Info{Name: name, Title: title, Ref: "none",
			Tasks: []datasets.Task{datasets.Regression}, Private: private, Version: 1},
			func(p iterativeParams) (mechanisms.Mechanism, error) { return &iterativeMech{p, private}, nil }, iterativeParams{})
	}
}

func (m *iterativeMech) event() accounting.Event {
	if !m.private {
		return accounting.NonPrivate{}
	}
	sigma := m.p.Sigma
	if sigma == 0 {
		sigma = 1
	}
	return accounting.Gaussian{Sigma: sigma, Sensitivity: 1}
}

// EventShapes implements mechanisms.Mechanism.
func (m *iterativeMech) EventShapes(mechanisms.Budget) ([]accounting.Event, error) {
	return []accounting.Event{m.event()}, nil
}

// Fit implements mechanisms.Mechanism.
func (m *iterativeMech) Fit(ctx context.Context, train *datasets.Dataset, _ mechanisms.Budget, rs rngs.Streams) (*mechanisms.Release, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	steps, scale := m.p.Steps, m.p.Scale
	if steps == 0 {
		steps = 10
	}
	if scale == 0 {
		scale = 1
	}
	f := 1 + m.p.Jitter*rs.Get("noise").Float64()
	trace := make([]float64, steps+1)
	for t := range trace {
		trace[t] = f * scale / float64(t+1)
	}
	n := train.Rows()
	rel := &mechanisms.Release{
		Model: &mechanisms.Linear{Theta: make([]float64, train.Cols())}, Event: m.event(),
		Trace: map[string][]float64{"excess_objective": trace},
		Stats: map[string]float64{"n": float64(n), "node1/n": float64(n / 2), "node2/n": float64(n - n/2),
			"node1/eta": scale, "node2/eta": 2 * scale},
	}
	if m.private {
		rel.Noise = map[string]float64{"node1/gamma": 10, "node2/gamma": 20}
		rel.TargetScope = m.p.Scope
	}
	return rel, nil
}
