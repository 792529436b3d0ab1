package audit

import (
	"context"
	"sync"

	"github.com/dplab/dplab/datasets"
	"github.com/dplab/dplab/internal/rngs"
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// brokenFactor is how much cheaper than claimed the broken variants are:
// fitted at 5ε while claiming ε. For the RDP-calibrated Gaussian noise of
// dpsgd, dpgd and objpert-output this divides the noise multiplier by about
// 4 (4.045 → ≈ 1.0 at δ = 1e-5; TestBrokenNoiseRatio), the issue's
// "noise scaled down by 4".
const brokenFactor = 5

// underCharged is a deliberately broken mechanism, built only in tests: it
// fits inner at factor·ε (so its noise is several times smaller) but returns the ledger of an honest fit at
// ε, i.e. it claims ε while spending about factor·ε.
type underCharged struct {
	inner  mechanisms.Mechanism
	factor float64
	mu     sync.Mutex
	ledger map[*datasets.Dataset]accounting.Event
}

func (u *underCharged) Fit(ctx context.Context, d *datasets.Dataset, b mechanisms.Budget, rs rngs.Streams) (*mechanisms.Release, error) {
	cheap := b
	cheap.Epsilon *= u.factor
	r, err := u.inner.Fit(ctx, d, cheap, rs)
	if err != nil {
		return nil, err
	}
	ev, err := u.honestLedger(ctx, d, b)
	if err != nil {
		return nil, err
	}
	out := *r
	out.Event = ev
	return &out, nil
}

// honestLedger returns the event an honest fit on d at b charges (once per
// dataset).
func (u *underCharged) honestLedger(ctx context.Context, d *datasets.Dataset, b mechanisms.Budget) (accounting.Event, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if ev, ok := u.ledger[d]; ok {
		return ev, nil
	}
	r, err := u.inner.Fit(ctx, d, b, rngs.New(rngs.Derive("broken-ledger")))
	if err != nil {
		return nil, err
	}
	if u.ledger == nil {
		u.ledger = map[*datasets.Dataset]accounting.Event{}
	}
	u.ledger[d] = r.Event
	return r.Event, nil
}

func (u *underCharged) EventShapes(b mechanisms.Budget) ([]accounting.Event, error) {
	return u.inner.EventShapes(b)
}

// underChargedSRDP is underCharged for a mechanism with a smooth-RDP
// result, which it forwards (a pipeline accounts the honest ledger with it).
type underChargedSRDP struct{ *underCharged }

func (u underChargedSRDP) SmoothRDP(e accounting.Event) (*accounting.SRDP, error) {
	return u.inner.(mechanisms.SmoothRDPer).SmoothRDP(e)
}

// breakMechanism returns the under-charged variant of m.
func breakMechanism(m mechanisms.Mechanism) mechanisms.Mechanism {
	u := &underCharged{inner: m, factor: brokenFactor}
	if _, ok := m.(mechanisms.SmoothRDPer); ok {
		return underChargedSRDP{u}
	}
	return u
}
