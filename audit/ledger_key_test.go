package audit

import (
	"strings"
	"testing"

	"github.com/dplab/dplab/mechanisms/accounting"
)

// TestLedgerCheckRepeatCheap: a ledger already accounted (every sampled run
// after the first of a cell) is found by its accounting.EventKey with one
// allocation (the key) instead of encoding it to JSON (14 allocations for a
// DP-SGD ledger: fails before). A ledger that spends more than the claim is
// still refused, naming it in JSON, and is never memoised as accepted.
func TestLedgerCheckRepeatCheap(t *testing.T) {
	l := &ledgerCheck{claimed: 1, delta: 1e-5}
	var within accounting.Event = accounting.SelfComposed{Event: accounting.PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 2}, Count: 100}
	if err := l.check(within); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := l.check(within); err != nil {
			t.Error(err)
		}
	}); n > 1 {
		t.Errorf("a repeated ledger check allocates %v times, want ≤ 1", n)
	}
	over := accounting.SelfComposed{Event: accounting.PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 0.5}, Count: 100}
	for range 2 {
		err := l.check(over)
		if err == nil || !strings.Contains(err.Error(), `"noise_multiplier":0.5`) {
			t.Errorf("a ledger over the claim: %v", err)
		}
	}
}
