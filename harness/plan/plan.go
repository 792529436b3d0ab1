// Package plan turns a loaded spec into the plan every later step consumes:
// its grid of cells, expanded once, with the run's trial count resolved
// once. run, plan/--estimate, shards, merge, render, report and the HTML
// report read the cells of a Plan; nothing else expands the grid
// (TestExpandCalledOnlyByPlan), and nothing mutates the spec.
package plan

import (
	"context"

	"github.com/dplab/dplab/harness/spec"
)

// Plan is a spec with its cells. It is read-only: its accessors return the
// plan's own spec and cells, which no caller may modify.
type Plan struct {
	spec   *spec.Spec
	cells  []spec.Cell
	trials int
}

// Options resolve what a run may override in the spec.
type Options struct {
	// Trials is the number of trials per cell; 0 means the spec's.
	Trials int
}

// New returns the plan of s (loaded and validated: spec.Load) under o: the
// cells of s.Expand, each with the resolved trial count. A trial count that
// takes the grid over the spec's limits is a *spec.SpecError. It stops with
// ctx's error when ctx is done.
func New(ctx context.Context, s *spec.Spec, o Options) (*Plan, error) {
	trials := s.Trials
	if o.Trials > 0 && o.Trials != s.Trials {
		trials = o.Trials
		if err := s.CheckSizeWith(trials); err != nil {
			return nil, err
		}
	}
	cells, err := s.Expand(ctx)
	if err != nil {
		return nil, err
	}
	for i := range cells {
		cells[i].Trials = trials
	}
	return &Plan{spec: s, cells: cells, trials: trials}, nil
}

// Spec returns the plan's spec (read-only).
func (p *Plan) Spec() *spec.Spec { return p.spec }

// Cells returns the plan's cells in expansion order: datasets, then
// mechanisms, then sweep points, then ε (read-only; shared, not copied).
func (p *Plan) Cells() []spec.Cell { return p.cells }

// Trials returns the trials per cell: the spec's, or the override the plan
// was made with.
func (p *Plan) Trials() int { return p.trials }
