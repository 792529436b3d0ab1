package audit

import (
	"context"
	"testing"
	"time"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/fielddoc"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// auditEpsilon and auditDelta are the claimed (ε, δ) of every audit test.
const auditEpsilon, auditDelta = 1.0, 1e-5

// TestGaussianReference audits the reference Gaussian mechanism at ε = 1,
// δ = 1e-5: the lower bound must reach 0.5 (auditing.md §5: about 35,000
// evaluation runs per side are needed; 50,000 are used) and stay at or
// below the claim; σ/4 and unenforced clipping must be caught.
func TestGaussianReference(t *testing.T) {
	tg, err := NewGaussian(nil, auditEpsilon, auditDelta)
	if err != nil {
		t.Fatal(err)
	}
	if d := tg.Claimed - auditEpsilon; d > 1e-9 || d < -1e-6 {
		t.Fatalf("claimed ε %v, want the target %v (analytic calibration is tight)", tg.Claimed, auditEpsilon)
	}
	o, err := Run(context.Background(), tg.Sample, Options{Trials: 100000, Delta: auditDelta, Seed: "gaussian"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gaussian: lower bound %.4f (claimed %.4f), FP %d, FN %d of %d", o.LowerBound, tg.Claimed, o.FP, o.FN, o.Evaluation)
	if o.LowerBound < 0.5 {
		t.Errorf("gaussian audit reached only %.4f < 0.5", o.LowerBound)
	}
	if o.LowerBound > tg.Claimed {
		t.Errorf("gaussian audit %.4f refutes a correct mechanism's ε = %v", o.LowerBound, tg.Claimed)
	}

	s := Setup{AuditSetup: mechanisms.AuditSetup{Task: datasets.Regression, Rows: 20, Dim: 3}}
	d0, d1 := gaussianPair(s, 1)
	sigma := tg.Noise["sigma"]
	for _, b := range []struct {
		name   string
		sample Sampler
		trials int
	}{
		{"noise/4", gaussianSampler(d0, d1, 1, sigma/4, true), 2000},
		{"no clipping", gaussianSampler(d0, d1, 1, sigma, false), 500},
	} {
		o, err := Run(context.Background(), b.sample, Options{Trials: b.trials, Delta: auditDelta, Seed: "gaussian-" + b.name})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("gaussian, broken (%s): lower bound %.4f at %d runs per side", b.name, o.LowerBound, b.trials)
		if !(o.LowerBound > tg.Claimed) {
			t.Errorf("broken gaussian (%s) not caught: lower bound %.4f ≤ %v", b.name, o.LowerBound, tg.Claimed)
		}
	}
}

// shortTrials and shortFactor are TestMechanismAudits's settings under
// -short (make test): at most shortTrials runs per side, and an
// under-charged variant fitted at shortFactor·ε instead of brokenFactor·ε.
// At 400 runs every non-Weak variant at 20ε is refuted with its bound at
// 1.5–4 (objpert-kifer, the closest, 1.55 against its claim 1), while at
// 5ε most need thousands of runs (objpert-kifer 50,000: 77–261 s of the
// 89-s make test); every leak variant is refuted from 50–200 runs.
// shortWeakTrials caps, under -short, the runs of a Weak plan, whose
// under-charged variant is not run: only its real mechanism and its leak
// variants are (ptr-pca-dpgd/gradient's no-clip is refuted at 2.40 against
// its claim 1 at 200 runs, 2.78 at 400).
const shortTrials, shortFactor, shortWeakTrials = 400, 20, 200

// TestMechanismAudits audits every registered private mechanism, pipeline
// and further pair (Names; each plan is the target's declared
// mechanisms.Audit: Trials runs per side, and Weak, when set, why the
// under-charged variant cannot be caught at these settings, Leaks the
// further variants that must be) at ε = 1, δ = 1e-5 through its own Fit:
// the real mechanism must not be refuted, and its under-charged variant
// (fitted at 5ε while claiming ε, underCharged) and its leak variants must
// be refuted where the plan says. Under -short each audit takes at most
// shortTrials runs per side and its under-charged variant is the grosser
// shortFactor one (still required to be refuted where the plan is not
// Weak; the Weak ones' under-charged variants, which nothing requires, are
// not run): it still fails on a private mechanism that declares no audit, a real
// mechanism refuted at 400 runs, an audit whose pair or statistic does not
// see a 20-fold under-charge, and every leak variant not caught. make
// test-long runs the plan's full audits.
func TestMechanismAudits(t *testing.T) {
	start := time.Now()
	factor := float64(brokenFactor)
	if testing.Short() {
		factor = shortFactor
	}
	for _, name := range Names() {
		d, err := lookup(name)
		if err != nil {
			t.Error(err)
			continue
		}
		plan := d.audit
		if plan.Trials < 1 {
			t.Errorf("%s: its declared audit has no Trials", name)
			continue
		}
		type variant struct {
			name      string
			mustCatch bool
			build     leakVariant
		}
		trials := plan.Trials
		variants := []variant{{"real", false, nil}}
		if testing.Short() {
			trials = min(trials, shortTrials)
			if plan.Weak != "" {
				trials = min(trials, shortWeakTrials)
			}
		}
		if !testing.Short() || plan.Weak == "" {
			variants = append(variants, variant{"under-charged", plan.Weak == "", func(_ string, m mechanisms.Mechanism, s Setup) (mechanisms.Mechanism, Setup, error) {
				return breakMechanism(m, factor), s, nil
			}})
		}
		for _, l := range plan.Leaks {
			build, ok := leakVariants[l]
			if !ok {
				t.Fatalf("%s: unknown leak variant %q", name, l)
			}
			variants = append(variants, variant{l, true, build})
		}
		t.Run(name, func(t *testing.T) {
			for _, v := range variants {
				t0 := time.Now()
				m, setup, err := buildForAudit(name)
				if err != nil {
					t.Fatal(err)
				}
				if v.build != nil {
					if m, setup, err = v.build(name, m, setup); err != nil {
						t.Fatal(err)
					}
				}
				tg, err := NewTargetFor(context.Background(), name, m, setup, auditEpsilon, auditDelta)
				if err != nil {
					t.Fatal(err)
				}
				o, err := Run(context.Background(), tg.Sample, Options{Trials: trials, Delta: auditDelta, Seed: name})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s: relation %s, claimed ε %.4f, lower bound %.4f (FP %d, FN %d of %d evaluation runs per side; shift %.3f sd) %v",
					name, v.name, tg.Relation, tg.Claimed, o.LowerBound, o.FP, o.FN, o.Evaluation, (o.Mean1-o.Mean0)/o.SD0, time.Since(t0).Round(time.Millisecond))
				switch {
				case v.build == nil && o.LowerBound > tg.Claimed:
					t.Errorf("real %s refuted: lower bound %.4f > claimed %.4f", name, o.LowerBound, tg.Claimed)
				case v.mustCatch && !(o.LowerBound > tg.Claimed):
					t.Errorf("%s variant of %s not caught: lower bound %.4f ≤ claimed %.4f", v.name, name, o.LowerBound, tg.Claimed)
				}
			}
		})
	}
	t.Logf("all mechanism audits: %v", time.Since(start).Round(time.Millisecond))
}

// TestBrokenNoiseRatio measures how much the under-charged variant divides
// the noise of the Gaussian-noise mechanisms: by about 4 (within 15%).
func TestBrokenNoiseRatio(t *testing.T) {
	for _, c := range []struct{ name, key string }{{"dpsgd", "noise_multiplier"}, {"dpgd", "sigma"}, {"objpert-output", "noise_multiplier"}, {"ssp", "sigma"}} {
		var noise [2]float64
		for i, broken := range []bool{false, true} {
			m, setup, err := buildForAudit(c.name)
			if err != nil {
				t.Fatal(err)
			}
			if broken {
				m = breakMechanism(m, brokenFactor)
			}
			tg, err := NewTargetFor(context.Background(), c.name, m, setup, auditEpsilon, auditDelta)
			if err != nil {
				t.Fatal(err)
			}
			noise[i] = tg.Noise[c.key]
		}
		r := noise[0] / noise[1]
		t.Logf("%s: %s %.4g → %.4g (÷%.2f)", c.name, c.key, noise[0], noise[1], r)
		if r < 3.4 || r > 4.6 {
			t.Errorf("%s: broken variant divides %s by %.2f, want ≈ 4", c.name, c.key, r)
		}
	}
}

// buildForAudit builds the audit target name's mechanism with its declared
// audit params, and its setup.
func buildForAudit(name string) (mechanisms.Mechanism, Setup, error) {
	m, setup, _, err := build(name, nil)
	return m, setup, err
}

// TestPairRelations checks that the pair generator produces the declared
// relation (auditing.md §7.5): add/remove differs by one added row,
// zero-out and replace-one by one row at the same index.
func TestPairRelations(t *testing.T) {
	s := Setup{AuditSetup: mechanisms.AuditSetup{Task: datasets.Regression, Rows: 6, Dim: 3}}
	for _, rel := range []string{accounting.RelationAddRemove, accounting.RelationZeroOut, accounting.RelationReplaceOne} {
		d0, d1, _ := neighbours(s, rel)
		n0, _ := d0.X.Dims()
		n1, _ := d1.X.Dims()
		diff := 0
		for i := 0; i < min(n0, n1); i++ {
			for j := 0; j < s.Dim; j++ {
				if d0.X.At(i, j) != d1.X.At(i, j) {
					diff++
					break
				}
			}
		}
		switch rel {
		case accounting.RelationAddRemove:
			if n1 != n0+1 || diff != 0 {
				t.Errorf("%s: n0 = %d, n1 = %d, %d shared rows differ", rel, n0, n1, diff)
			}
		default:
			if n1 != n0 || diff != 1 {
				t.Errorf("%s: n0 = %d, n1 = %d, %d rows differ", rel, n0, n1, diff)
			}
		}
		if rel == accounting.RelationZeroOut {
			for j := 0; j < s.Dim; j++ {
				if d0.X.At(n0-1, j) != 0 || d0.Y[n0-1] != 0 {
					t.Errorf("zero-out: D₀'s differing row is not zero")
				}
			}
		}
	}
}

// TestTrustDocGenerated fails when docs/trust.md's table of audit results
// is not what the registry declares (trustTable); go generate ./audit
// rewrites it.
func TestTrustDocGenerated(t *testing.T) {
	table, err := trustTable()
	if err != nil {
		t.Fatal(err)
	}
	if err := fielddoc.CheckSection("../docs/trust.md", "trust-table", []byte(table), "go generate ./audit"); err != nil {
		t.Error(err)
	}
}

// TestDeclaredAudits checks the audits the registry declares before any
// run: a private mechanism declares exactly one audit of its own (Name "")
// and further pairs under distinct names, a non-private one none; every
// setup resolves (a known pair), has runs, and names only known leak
// variants; so does every pipeline's.
func TestDeclaredAudits(t *testing.T) {
	check := func(name string, info mechanisms.Info, a mechanisms.Audit) {
		if _, err := setupFrom(info, a.Setup); err != nil {
			t.Error(err)
		}
		if a.Trials < 1 {
			t.Errorf("%s: declares no Trials", name)
		}
		for _, l := range a.Leaks {
			if _, ok := leakVariants[l]; !ok {
				t.Errorf("%s: unknown leak variant %q", name, l)
			}
		}
	}
	for _, info := range mechanisms.List() {
		if !info.Private {
			if len(info.Audits) > 0 {
				t.Errorf("%s: a non-private mechanism declares audits", info.Name)
			}
			continue
		}
		seen := map[string]bool{}
		for _, a := range info.Audits {
			if seen[a.Name] {
				t.Errorf("%s: two audits named %q", info.Name, a.Name)
			}
			seen[a.Name] = true
			name := info.Name
			if a.Name != "" {
				name += "/" + a.Name
			}
			check(name, info, a)
		}
		if !seen[""] {
			t.Errorf("%s: a private mechanism declares no audit of its own (Info.Audits with Name \"\")", info.Name)
		}
	}
	for name, p := range Pipelines {
		e, err := mechanisms.Lookup(p.Mechanism)
		if err != nil {
			t.Fatal(err)
		}
		check(name, e.Info, p.Audit)
	}
}
