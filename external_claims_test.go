package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/dplab/dplab/harness/docgen"
	"github.com/dplab/dplab/harness/report"
)

// TestNumPySpendsLessCanBeContradicted evaluates the claim numpy-spends-less
// of examples/external/compare.toml on its committed evidence altered as if
// the NumPy worker had chosen its noise with a conversion as tight as
// dplab's: its ε spent that of dplab's DP-SGD at the same ε, less a
// millionth (a calibration stopping just below the target). The claim, that
// the worker's classic conversion is looser than dplab's, must then not
// hold. With max = 1 it held: a declare-mode trial spending more than its
// target fails (CheckSpent) and dplab's DP-SGD spends the target, so every
// stored ratio is at most 1 by construction and the verdict could not come
// out the other way.
func TestNumPySpendsLessCanBeContradicted(t *testing.T) {
	dir := filepath.Join("examples", "external")
	g := docgen.New(docgen.Config{Specs: dir, Evidence: filepath.Join(dir, "evidence")})
	b, err := os.ReadFile(g.EvidencePath("compare"))
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile(`"label":"(DP-SGD \((?:NumPy|dplab)\))","epsilon":([0-9.e+-]+),.*?"eps_spent_max":([0-9.e+-]+)`)
	builtin := map[string]float64{}
	for _, m := range cell.FindAllSubmatch(b, -1) {
		if string(m[1]) == "DP-SGD (dplab)" {
			v, err := strconv.ParseFloat(string(m[3]), 64)
			if err != nil {
				t.Fatal(err)
			}
			builtin[string(m[2])] = v
		}
	}
	replaced := 0
	b = cell.ReplaceAllFunc(b, func(m []byte) []byte {
		sm := cell.FindSubmatchIndex(m)
		if string(m[sm[2]:sm[3]]) != "DP-SGD (NumPy)" {
			return m
		}
		eps := string(m[sm[4]:sm[5]])
		v, ok := builtin[eps]
		if !ok {
			t.Fatalf("no DP-SGD (dplab) cell at ε = %s in the evidence", eps)
		}
		replaced++
		return fmt.Appendf(append([]byte{}, m[:sm[6]]...), "%v%s", v*(1-1e-6), m[sm[7]:])
	})
	if replaced == 0 || replaced != len(builtin) {
		t.Fatalf("altered %d DP-SGD (NumPy) cells, want one per DP-SGD (dplab) cell (%d)", replaced, len(builtin))
	}
	ev, err := report.ParseEvidence("altered", b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.Outputs("compare", ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range out.Claims.Claims {
		if c.ID != "numpy-spends-less" {
			continue
		}
		if c.Verdict == report.Holds || c.Held > 0 {
			t.Errorf("numpy-spends-less %s (%s) on a worker whose ε spent is dplab's DP-SGD's: the claim cannot fail", c.Verdict, c.Summary)
		}
		return
	}
	t.Fatal("no claim numpy-spends-less in examples/external/compare.toml")
}
