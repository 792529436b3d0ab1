package datasets

import (
	"math"
	"testing"
)

// TestHIGGSLikeShape checks higgs-like at its defaults against its
// description: 20,000 × 28 with HIGGS's column names, labels 0/1 with about
// 53% ones (binomial sd √(0.53·0.47/20000) ≈ 0.0035; bound 0.015), momenta
// and masses positive with mean 1 for label 0 (log-normal sd ≈ 0.53, so the
// mean of ≈ 9,400 rows has sd ≈ 0.0055; bound 0.03), |η| ≤ 2.5, |φ| ≤ √3,
// b-tags in {0, 1.0865, 2.173}, signal rows' m_bb larger by e^0.15 ≈ 1.162
// on average (bound 0.05) and m_jj not; another seed gives other data.
func TestHIGGSLikeShape(t *testing.T) {
	l, err := loadFrom("", "higgs-like")
	if err != nil {
		t.Fatal(err)
	}
	d := l.All
	checkWellFormed(t, d, Regression)
	if d.Rows() != 20000 || d.Cols() != 28 || d.Features[0] != "lepton_pt" || d.Features[27] != "m_wwbb" {
		t.Fatalf("%d × %d, features %v", d.Rows(), d.Cols(), d.Features)
	}
	var ones float64
	for _, y := range d.Y {
		if y != 0 && y != 1 {
			t.Fatalf("label %v", y)
		}
		ones += y
	}
	if f := ones / 20000; math.Abs(f-0.53) > 0.015 {
		t.Errorf("fraction of label 1: %v, want 0.53 ± 0.015", f)
	}
	classMean := func(j int, label float64) float64 {
		var s, n float64
		for i, y := range d.Y {
			if y == label {
				s += d.X.At(i, j)
				n++
			}
		}
		return s / n
	}
	for j, name := range d.Features {
		for i := 0; i < d.Rows(); i++ {
			v := d.X.At(i, j)
			ok := true
			switch higgsKindOf(name) {
			case higgsMomentum:
				ok = v > 0
			case higgsEta:
				ok = math.Abs(v) <= 2.5
			case higgsPhi:
				ok = math.Abs(v) <= math.Sqrt(3)
			case higgsBTag:
				ok = v == 0 || v == 1.0865 || v == 2.173
			}
			if !ok {
				t.Fatalf("%s = %v in row %d", name, v, i)
			}
		}
		if higgsKindOf(name) == higgsMomentum {
			if m := classMean(j, 0); math.Abs(m-1) > 0.03 {
				t.Errorf("%s: label-0 mean %v, want 1 ± 0.03", name, m)
			}
		}
	}
	bb, jj := indexOf(d.Features, "m_bb"), indexOf(d.Features, "m_jj")
	if r := classMean(bb, 1) / classMean(bb, 0); math.Abs(r-math.Exp(0.15)) > 0.05 {
		t.Errorf("m_bb signal/background mean ratio %v, want e^0.15 ± 0.05", r)
	}
	if r := classMean(jj, 1) / classMean(jj, 0); math.Abs(r-1) > 0.05 {
		t.Errorf("m_jj signal/background mean ratio %v, want 1 ± 0.05", r)
	}
	other, err := loadFrom("", "higgs-like", "seed=1")
	if err != nil {
		t.Fatal(err)
	}
	if sameData(parts(l), parts(other)) {
		t.Error("seeds 0 and 1 give the same data")
	}
}
