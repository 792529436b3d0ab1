package report

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dplab/dplab/experiments/internal/spectest"
	"github.com/dplab/dplab/experiments/run"
	"github.com/dplab/dplab/experiments/spec"
	"github.com/dplab/dplab/results"
)

// runAndRender runs s and renders its figures and tables from the run's
// records, as the CLI's run command does: a Collector given each record
// (run.Options.Records) renders once the trials are done.
func runAndRender(s *spec.Spec, opt run.Options) (*run.Report, []string, error) {
	col, err := NewCollector(s)
	if err != nil {
		return nil, nil, err
	}
	var outs []string
	var rerr error
	opt.Records = col.Add
	opt.Render = func() { outs, rerr = col.Render(opt.OutDir, opt.Log) }
	rep, err := run.Run(context.Background(), s, opt)
	if err == nil {
		err = rerr
	}
	return rep, outs, err
}

// stored returns the records of the store in dir.
func stored(t *testing.T, dir string) []results.Record {
	t.Helper()
	recs, err := results.Read(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return recs
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
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for perm := 0; perm < 5; perm++ {
		recs := stored(t, dir)
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

// TestRenderIncompleteSaysSo: rendering the records of an interrupted run
// (some cells short of the spec's trials, one with none) states the stored
// count per short cell and in total in every footnote, and warns on the log;
// a complete run's footnotes say nothing of it.
func TestRenderIncompleteSaysSo(t *testing.T) {
	s := spectest.MustParse(t, spectest.Valid)
	dir := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}, Log: &log}); err != nil {
		t.Fatal(err)
	}
	table := func(d string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(d, "tables", s.Tables[0].Name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := table(dir); strings.Contains(got, "INCOMPLETE") || strings.Contains(log.String(), "incomplete") {
		t.Fatalf("a complete run is called incomplete:\n%s\n%s", got, log.String())
	}
	// Drop trial 2 of the first cell and every trial of the second.
	cells := spectest.Cells(t, s)
	var recs []results.Record
	for _, r := range stored(t, dir) {
		if r.CellKey == cells[0].Key && r.Trial == 2 || r.CellKey == cells[1].Key {
			continue
		}
		recs = append(recs, r)
	}
	want := 0
	for _, c := range cells {
		want += c.Trials
	}
	other := filepath.Join(t.TempDir(), "partial")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := RenderRecords(s, other, recs, &log); err != nil {
		t.Fatal(err)
	}
	got := table(other)
	short := fmt.Sprintf("at ε = %s (%d of %d)", strconv.FormatFloat(cells[0].Epsilon, 'g', 3, 64), cells[0].Trials-1, cells[0].Trials)
	for _, w := range []string{fmt.Sprintf("INCOMPLETE: %d of %d trials stored", len(recs), want), short, "1 cell with none, not drawn"} {
		if !strings.Contains(got, w) {
			t.Errorf("the footnote lacks %q:\n%s", w, got)
		}
	}
	if !strings.Contains(log.String(), fmt.Sprintf("warning: rendering incomplete results: %d of %d trials stored", len(recs), want)) {
		t.Errorf("no warning on the log: %q", log.String())
	}
}

// TestLedgerNoiseMeans compares a privacy table's noise means with sums
// over the trials in a map: trials whose noise parameters differ (some
// missing, some new, ±0 among the values), added in any order, give each
// parameter the sum over the trials that have it, in trial order, divided
// by all of them, bit for bit.
func TestLedgerNoiseMeans(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	names := []string{"sigma", "k", "scale", "gamma"}
	values := []float64{0, math.Copysign(0, -1), 0.1, 1e-300, 3, -2.5}
	for range 100 {
		sums := map[string]float64{}
		n := 1 + r.IntN(30)
		recs := make([]results.Record, n)
		for trial := range recs {
			rec := results.Record{CellKey: "c", Trial: trial, Status: results.StatusOK, Privacy: results.Privacy{Noise: map[string]results.Float{}}}
			for _, k := range names {
				if r.IntN(3) > 0 {
					x := values[r.IntN(len(values))] * (1 + r.Float64())
					rec.Privacy.Noise[k] = results.Float(x)
					sums[k] += x
				}
			}
			recs[trial] = rec
		}
		r.Shuffle(n, func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		cells := results.Aggregate(recs, results.CIAuto)
		got := noiseMeans(&cells[0])
		if len(got) != len(sums) {
			t.Fatalf("noise means %v, want the keys of %v", got, sums)
		}
		for k, sum := range sums {
			if want := sum / float64(n); math.Float64bits(got[k]) != math.Float64bits(want) {
				t.Fatalf("%s: mean %v, want %v", k, got[k], want)
			}
		}
	}
}

// TestRenderLogYZero: a log-y ε figure whose metric is 0 in some cell (a
// test error on an easy split; here test_mse set to 0) and whose reference
// line is 0 is drawn with those values at a floor that the footnote names.
// Rendering failed with "y = 0 on a log axis" and wrote no figure.
func TestRenderLogYZero(t *testing.T) {
	src := spectest.Valid + "\n[[figure]]\nname = \"logmse\"\nmetric = \"test_mse\"\nlog_y = true\nformats = [\"svg\"]\n"
	s := spectest.MustParse(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	if _, _, err := runAndRender(s, run.Options{Jobs: 2, OutDir: dir, Cache: &run.DataCache{}}); err != nil {
		t.Fatal(err)
	}
	cells := spectest.Cells(t, s)
	recs := stored(t, dir)
	for i := range recs {
		if recs[i].CellKey == cells[0].Key || recs[i].Mechanism == "ridge" {
			recs[i].Metrics = map[string]results.Float{"test_mse": 0, "train_mse": 0}
		}
	}
	other := filepath.Join(t.TempDir(), "zero")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RenderRecords(s, other, recs, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(other, "figures", "logmse.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "drawn at the floor") {
		t.Error("the footnote does not say which values were drawn at the floor")
	}
}
