package report

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dplab/dplab/experiments/internal/spectest"
	"github.com/dplab/dplab/experiments/run"
	"github.com/dplab/dplab/experiments/spec"
)

// runAndRender runs s and renders its figures and tables from the run's
// records, as the CLI's run command does.
func runAndRender(s *spec.Spec, opt run.Options) (*run.Report, []string, error) {
	rep, err := run.Run(context.Background(), s, opt)
	if rep == nil || rep.Records == nil {
		return rep, nil, err
	}
	outs, rerr := RenderRecords(s, rep.Dir, rep.Records, opt.Log)
	if err == nil {
		err = rerr
	}
	return rep, outs, err
}

// TestRenderIsByteIdentical re-renders stored results and compares every
// output file byte for byte (figures, tables, summary).
func TestRenderIsByteIdentical(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := spectest.MustParse(t, spectest.Valid)
	_, outs, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, p := range outs {
		first[p], _ = os.ReadFile(p)
	}
	again, err := Render(spectest.MustParse(t, spectest.Valid), dir, nil)
	if err != nil || len(again) != len(outs) || len(again) < 6 {
		t.Fatalf("re-render wrote %v (%v); first %v", again, err, outs)
	}
	for _, p := range again {
		b, _ := os.ReadFile(p)
		if !bytes.Equal(b, first[p]) {
			t.Errorf("%s differs between renders of the same results", p)
		}
	}
}

// TestRenderIndependentOfRecordOrder: the store's records come in the order
// trials finished, which depends on -j; every output must not (the privacy
// table's mean noise was a float sum in file order, and differed in its
// last digit between runs).
func TestRenderIndependentOfRecordOrder(t *testing.T) {
	src := spectest.Valid + "\n[[table]]\nname = \"cal\"\nkind = \"privacy\"\n"
	s := spectest.MustParse(t, src)
	s.Trials = 40
	dir := filepath.Join(t.TempDir(), "a")
	rep, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for perm := 0; perm < 5; perm++ {
		recs := slices.Clone(rep.Records)
		r.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		other := filepath.Join(t.TempDir(), "b")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		outs, err := RenderRecords(s, other, recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range outs {
			rel, _ := filepath.Rel(other, p)
			a, _ := os.ReadFile(filepath.Join(dir, rel))
			b, _ := os.ReadFile(p)
			if !bytes.Equal(a, b) {
				t.Errorf("permutation %d: %s differs when the records come in another order", perm, rel)
			}
		}
	}
}
