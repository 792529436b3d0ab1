package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dplab/dplab/audit"
	"github.com/dplab/dplab/harness/plan"
	"github.com/dplab/dplab/harness/spec"
	"github.com/dplab/dplab/results"
)

// TestAuditGridRun: an audit grid's cell is one trial whose record holds
// exactly what package audit measures for that target with the trial's
// seed (an independent call of audit.NewTarget and audit.Run), stored in
// the run's store (trials.jsonl) and resumed from it like any trial.
func TestAuditGridRun(t *testing.T) {
	const src = `name = "ag"
seed = 3
delta = 1e-5
epsilon = [1, 4]
[audit]
runs = 200
confidence = 0.9
[[mechanism]]
name = "gaussian"
[[mechanism]]
name = "dpsgd"
label = "DP-SGD"
runs = 100
`
	s, err := plan.Parse("ag.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var seen int
	rep, err := Run(context.Background(), s, Options{OutDir: dir, Jobs: 2, Records: func(*results.Record) { seen++ }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cells != 4 || rep.Ran != 4 || seen != 4 {
		t.Fatalf("report %+v, %d records given to Records; want 4 cells run", rep, seen)
	}
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records stored, want 4", len(recs))
	}
	for _, r := range recs {
		runs := 200
		if r.Mechanism == "dpsgd" {
			runs = 100
		}
		tg, err := audit.NewTarget(context.Background(), r.Mechanism, nil, float64(r.Epsilon), 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		o, err := audit.Run(context.Background(), tg.Sample, audit.Options{Trials: runs, Confidence: 0.9, Delta: 1e-5, Seed: r.Seed, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		m, d := r.Metrics, r.Diagnostics
		if r.Status != results.StatusOK || r.Trial != 0 || m[plan.MetricAuditLowerBound] != results.Float(o.LowerBound) ||
			m[plan.MetricAuditClaimed] != results.Float(tg.Claimed) || m[plan.MetricAuditFP] != results.Float(o.FP) ||
			m[plan.MetricAuditFN] != results.Float(o.FN) || d[plan.DiagAuditThreshold] != results.Float(o.Threshold) ||
			d[plan.DiagAuditSign] != results.Float(o.Sign) || d[plan.DiagAuditAlphaUpper] != results.Float(o.AlphaUpper) ||
			d[plan.DiagAuditRuns] != results.Float(runs) || d[plan.DiagAuditConfidence] != 0.9 {
			t.Errorf("%s at ε = %v: metrics %v, diagnostics %v; audit.Run gives %+v (claimed %v)", r.Label, r.Epsilon, m, d, o, tg.Claimed)
		}
		if r.Privacy.EpsSpent != results.Float(tg.Claimed) || r.Privacy.Delta != 1e-5 || r.Privacy.Relation != tg.Relation {
			t.Errorf("%s at ε = %v: privacy %+v, want the target's claim %v under %s", r.Label, r.Epsilon, r.Privacy, tg.Claimed, tg.Relation)
		}
	}
	rep, err = Run(context.Background(), s, Options{OutDir: dir, Jobs: 2})
	if err != nil || rep.Stored != 4 || rep.Ran != 0 {
		t.Errorf("rerun: %v, report %+v; want 4 stored, none run", err, rep)
	}
}

// TestAuditGridResolveErrors: an unknown audit target and a shard of an
// audit grid are refused by Resolve, before anything is written, as spec
// errors naming the block or key.
func TestAuditGridResolveErrors(t *testing.T) {
	const src = "name = \"ag\"\nseed = 1\ndelta = 1e-5\nepsilon = [1]\n[audit]\nruns = 100\n[[mechanism]]\nname = \"nosuch\"\n"
	s, err := plan.Parse("ag.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, _, err = Resolve(context.Background(), s, Options{OutDir: dir})
	if se, ok := err.(*spec.SpecError); !ok || se.Key != "mechanism[0]" || se.Line != 7 || !strings.Contains(se.Error(), `"nosuch"`) {
		t.Errorf("unknown target: %v", err)
	}
	s, err = plan.Parse("ag.toml", []byte(strings.Replace(src, "nosuch", "gaussian", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Resolve(context.Background(), s, Options{OutDir: dir, Shard: Shard{Index: 0, Count: 2}})
	if se, ok := err.(*spec.SpecError); !ok || se.Key != "audit" || !strings.Contains(se.Error(), "not sharded") {
		t.Errorf("shard: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want nothing written", dir, err)
	}
}
