package datasets

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestClusteredUnitBallClustersAreGood checks the construction by brute force
// on the default size: rows in the unit ball, rows of one cluster within
// 2·radius·η of each other, rows of different clusters more than
// separation·η apart, cluster sizes in 1..b summing to n, and — the point of
// the generator — every row a good centre of η-deduplication
// (#{j: ‖x_j − x_i‖ ≤ η} = #{j: ‖x_j − x_i‖ ≤ 3η}, [HSS24] §4.1) whose
// η-ball is exactly its cluster (radius ≤ 0.5).
func TestClusteredUnitBallClustersAreGood(t *testing.T) {
	const eta, radius, sep, b = 0.1, 0.5, 3.0, 20
	ds, ids, err := GenerateClusteredUnitBall(ClusteredUnitBallParams{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, ds, Binary)
	n := ds.Rows()
	if n != 500 || ds.Cols() != 10 {
		t.Fatalf("shape %d × %d, want 500 × 10", n, ds.Cols())
	}
	size := map[int]int{}
	for _, k := range ids {
		size[k]++
	}
	for k, s := range size {
		if s < 1 || s > b {
			t.Errorf("cluster %d has %d rows, want 1..%d", k, s, b)
		}
	}
	for i := 0; i < n; i++ {
		xi := ds.X.RawRowView(i)
		if nrm := floats.Norm(xi, 2); nrm > 1 {
			t.Fatalf("row %d has norm %v > 1", i, nrm)
		}
		in1, in3 := 0, 0
		for j := 0; j < n; j++ {
			dist := floats.Distance(xi, ds.X.RawRowView(j), 2)
			same := ids[i] == ids[j]
			switch {
			case same && dist > 2*radius*eta+1e-12:
				t.Fatalf("rows %d, %d of cluster %d are %v apart, > 2·radius·η", i, j, ids[i], dist)
			case !same && dist <= sep*eta:
				t.Fatalf("rows %d, %d of clusters %d, %d are %v ≤ separation·η apart", i, j, ids[i], ids[j], dist)
			}
			if dist <= eta {
				in1++
			}
			if dist <= 3*eta {
				in3++
			}
		}
		if in1 != in3 || in1 != size[ids[i]] {
			t.Fatalf("row %d: %d rows within η, %d within 3η, cluster of %d: not a good centre of its cluster", i, in1, in3, size[ids[i]])
		}
		if ds.Y[i] != ds.Y[firstOf(ids, ids[i])] {
			t.Fatalf("row %d: labels differ within cluster %d", i, ids[i])
		}
	}
}

func firstOf(ids []int, k int) int {
	for i, v := range ids {
		if v == k {
			return i
		}
	}
	return -1
}

func TestClusteredUnitBallRefusesWhatCannotBePlaced(t *testing.T) {
	// 2,000 rows in clusters of ≤ 2 rows need ≥ 1,000 centres 0.8 apart in
	// the unit disc (area π; each centre needs a disc of area ≈ π·0.4²): impossible.
	_, _, err := GenerateClusteredUnitBall(ClusteredUnitBallParams{N: 2000, D: 2, Eta: 0.2, MaxCluster: 2})
	if err == nil || !strings.Contains(err.Error(), "cannot place") {
		t.Fatalf("err = %v, want a placement error", err)
	}
	for _, p := range []ClusteredUnitBallParams{{Eta: 0.6}, {Radius: 1}, {Separation: 2.5}, {N: 5, MaxCluster: 6}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no validation error", p)
		}
	}
}
