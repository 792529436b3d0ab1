package run

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/dplab/dplab/audit"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/internal/fileutil"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/results"
)

// CheckAudits builds every audit target of an audit grid's plan (at the
// cell's ε and params), so that an unknown target or a bad param is
// refused before anything runs, as a *spec.SpecError naming the
// [[mechanism]] block.
func CheckAudits(ctx context.Context, p *plan.Plan) error {
	s := p.Spec()
	seen := map[int]bool{}
	for _, c := range p.Cells() {
		if c.Audit == nil || seen[c.Mechanism] {
			continue
		}
		seen[c.Mechanism] = true
		if c.Entry.Info.Name != "" {
			continue // an external target: its worker runs with the audit
		}
		if _, err := auditTarget(ctx, s, &c); err != nil {
			return s.ErrIn("mechanism", c.Mechanism, "", "%v", err)
		}
	}
	return nil
}

// auditTarget builds cell c's audit target.
func auditTarget(ctx context.Context, s *spec.Spec, c *plan.Cell) (*audit.Target, error) {
	delta, err := s.Delta.Eval(0, 0) // a number (plan.validateAudit)
	if err != nil {
		return nil, err
	}
	var kv []string
	for k, v := range c.Params {
		kv = append(kv, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(kv)
	if c.Entry.Info.Name != "" {
		return externalTarget(ctx, c, kv, delta)
	}
	return audit.NewTarget(ctx, s.Mechanisms[c.Mechanism].Name, kv, c.Epsilon, delta)
}

// externalTarget builds the audit target of an external mechanism (the
// entry its block's table configures, plan.EntryOf) on the default canary
// pair of its first task. auditTrial stops its workers (closeExternal).
func externalTarget(ctx context.Context, c *plan.Cell, kv []string, delta float64) (*audit.Target, error) {
	m, _, err := c.Entry.Build(func(v any) error { _, err := spec.DecodeStrict(c.Params, v); return err })
	if err != nil {
		return nil, err
	}
	setup, err := audit.SetupOf(c.Entry.Info, mechanisms.AuditSetup{Task: c.Entry.Info.Tasks[0]})
	if err != nil {
		return nil, err
	}
	t, err := audit.NewTargetFor(ctx, c.Label, m, setup, c.Epsilon, delta)
	if err != nil {
		return nil, err
	}
	t.Params = kv
	return t, nil
}

// closeExternal stops the workers of an external cell's command (its
// mechanisms share them: closing one built from the cell closes them).
func closeExternal(c *plan.Cell) {
	if c.Entry.Info.Name == "" {
		return
	}
	if m, _, err := c.Entry.Build(func(v any) error { _, err := spec.DecodeStrict(c.Params, v); return err }); err == nil {
		if cl, ok := m.(io.Closer); ok {
			cl.Close()
		}
	}
}

// auditTrial runs cell c's audit as the cell's one trial (trial 0): the
// target's runs, seeded from the trial seed (rngs.TrialSeed of the spec
// seed and the cell key), on jobs workers. The record's metrics are the
// audit's (Metric* constants); its privacy is the target's ledger: the
// claimed ε as spent at δ under its relation (what an ordinary trial of
// the mechanism records), for one release on the audit's synthetic pair.
// ok is false when ctx was cancelled (nothing to store).
func auditTrial(ctx context.Context, s *spec.Spec, c *plan.Cell, jobs int, log io.Writer) (rec results.Record, ok bool) {
	seed := trialSeed(s, c, 0)
	rec = results.Record{Experiment: s.Name, CellKey: c.Key, Mechanism: s.Mechanisms[c.Mechanism].Name, Label: c.Label,
		Epsilon: results.Float(c.Epsilon), Seed: seed.Hex(), MechParams: c.Params, CodeVersion: codeVersion(),
		Privacy: results.Privacy{EpsTarget: results.Float(c.Epsilon), Accountant: "rdp", Tuning: spec.TuneNone}}
	defer func() {
		// As at a trial's boundary: a panic becomes a failed record.
		if p := recover(); p != nil {
			rec.Status = results.StatusFailed
			rec.Error = fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
			ok = true
		}
	}()
	start := time.Now()
	defer closeExternal(c)
	t, err := auditTarget(ctx, s, c)
	if err == nil {
		rec.Privacy.Delta = results.Float(t.Delta)
		var o *audit.Outcome
		o, err = audit.Run(ctx, t.Sample, audit.Options{Trials: c.Audit.Runs, Confidence: c.Audit.Confidence, Delta: t.Delta,
			Seed: seed.Hex(), Jobs: jobs, Progress: log, Label: fmt.Sprintf("%s ε=%g", c.Label, c.Epsilon)})
		if err == nil {
			rec.Metrics = map[string]results.Float{
				plan.MetricAuditLowerBound: results.Float(o.LowerBound), plan.MetricAuditClaimed: results.Float(t.Claimed),
				plan.MetricAuditFP: results.Float(o.FP), plan.MetricAuditFN: results.Float(o.FN),
			}
			rec.Diagnostics = map[string]results.Float{
				plan.DiagAuditConfidence: results.Float(o.Confidence), plan.DiagAuditRuns: results.Float(o.Trials),
				plan.DiagAuditEvaluation: results.Float(o.Evaluation),
				plan.DiagAuditAlphaUpper: results.Float(o.AlphaUpper), plan.DiagAuditBetaUpper: results.Float(o.BetaUpper),
				plan.DiagAuditThreshold: results.Float(o.Threshold), plan.DiagAuditSign: results.Float(o.Sign),
			}
			rec.Privacy.EpsSpent, rec.Privacy.Relation = results.Float(t.Claimed), t.Relation
			rec.Privacy.Noise = floatMap(t.Noise)
		}
	}
	rec.WallSeconds = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return rec, false
	}
	rec.Status = results.StatusOK
	if err != nil {
		rec.Status, rec.Error = results.StatusFailed, err.Error()
	}
	return rec, true
}

// runAudits runs an audit grid's plan: each cell's audit is its one trial,
// run (on every worker: the audit's runs are the parallel work) unless the
// store holds it, and appended to the store as any trial is (results.Open:
// the directory's lock, resume, torn-line repair).
func runAudits(ctx context.Context, p *plan.Plan, opt Options) (*Report, error) {
	start := time.Now()
	s, cells, dir := p.Spec(), p.Cells(), opt.OutDir
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	warn := func(msg string) { fmt.Fprintln(log, "warning:", msg) }
	keys := cellKeys(cells)
	exp := results.ExperimentCheck{Name: s.Name, Want: func(cell string) bool { return keys[cell] }}
	refuted := map[string]string{} // cell key → what refutes its claim
	visit := func(rec *results.Record) {
		exp.Add(rec)
		if opt.Force && keys[rec.CellKey] {
			return
		}
		if keys[rec.CellKey] {
			noteRefuted(refuted, rec)
		}
		if opt.Records != nil {
			opt.Records(rec)
		}
	}
	store, err := results.Open(dir, warn, visit)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := exp.Err(dir); err != nil {
		return nil, err
	}
	if opt.Force {
		if err := store.Rewrite(func(r *results.Record) bool { return !keys[r.CellKey] }); err != nil {
			return nil, err
		}
	}
	if err := fileutil.WriteFileAtomic(filepath.Join(dir, "spec.toml"), s.Source); err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Cells: len(cells), SkipReasons: map[string]string{}}
	var pending []*plan.Cell
	for i := range cells {
		rep.Total++
		if store.Done(results.Key{Cell: cells[i].Key, Trial: 0}) {
			rep.Stored++
			continue
		}
		rep.PendingBefore++
		pending = append(pending, &cells[i])
	}
	var writeErr error
	for _, c := range pending {
		rec, ok := auditTrial(ctx, s, c, opt.Jobs, log)
		if !ok {
			break
		}
		if writeErr = store.Append(rec); writeErr != nil {
			break
		}
		noteRefuted(refuted, &rec)
		switch rec.Status {
		case results.StatusOK:
			rep.Ran++
		default:
			rep.Failed++
			if len(rep.FailedErrors) < 3 {
				rep.FailedErrors = append(rep.FailedErrors, fmt.Sprintf("%s at ε=%g: %s", rec.Label, c.Epsilon, firstLine(rec.Error)))
			}
		}
		if opt.Records != nil {
			kept := rec // as the store reads it back
			kept.MechParams, kept.Schema = viaJSON(rec.MechParams), results.SchemaVersion
			opt.Records(&kept)
		}
	}
	rep.Interrupted = ctx.Err() != nil
	if err := store.Sync(); err != nil && writeErr == nil {
		writeErr = err
	}
	if opt.Render != nil && !rep.Interrupted && writeErr == nil {
		opt.Render()
	}
	m := results.Run{Build: results.CurrentBuild(), Args: opt.Args, Jobs: opt.Jobs, Quick: s.QuickApplied, Start: start,
		End: time.Now(), TrialsRun: rep.Ran, Failed: rep.Failed, Status: "complete"}
	switch {
	case rep.Interrupted:
		m.Status = "interrupted"
	case rep.Failed > 0 || writeErr != nil:
		m.Status = "failed"
	}
	r := &runner{spec: s}
	if err := r.writeManifest(dir, m, warn); err != nil {
		warn(err.Error())
	}
	rep.Elapsed = time.Since(start)
	switch {
	case writeErr != nil:
		return rep, writeErr
	case rep.Interrupted:
		return rep, fmt.Errorf("interrupted: %d of %d pending audits finished and are stored in %s; rerun the same command to resume", rep.Ran+rep.Failed, rep.PendingBefore, dir)
	case rep.Failed > 0:
		return rep, fmt.Errorf("%d audit(s) failed (records in %s); first: %s", rep.Failed, store.Path(), rep.FailedErrors[0])
	case len(refuted) > 0:
		var what []string
		for i := range cells {
			if r, ok := refuted[cells[i].Key]; ok {
				what = append(what, r)
			}
		}
		return rep, fmt.Errorf("VIOLATION: %s", strings.Join(what, "; "))
	}
	return rep, nil
}

// noteRefuted adds rec to refuted when it is an audit whose lower bound
// exceeds the claimed ε: a refutation of the mechanism's privacy claim.
func noteRefuted(refuted map[string]string, rec *results.Record) {
	lo, okL := rec.Metrics[plan.MetricAuditLowerBound]
	cl, okC := rec.Metrics[plan.MetricAuditClaimed]
	if rec.Status == results.StatusOK && okL && okC && lo > cl {
		refuted[rec.CellKey] = fmt.Sprintf("%s at ε = %g (lower bound %.4g > claimed %.4g)", rec.Label, float64(rec.Epsilon), float64(lo), float64(cl))
	}
}
