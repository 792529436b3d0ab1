package plan

import (
	"github.com/dplab/dplab/mechanisms"
	"github.com/dplab/dplab/mechanisms/accounting"
)

// Mechanism returns mechanism m (registry name name) behind the pipeline:
// a mechanisms.Preprocessed whose Fit charges each run as Event does. A
// non-private m (private false) is fitted behind the steps uncharged: its
// NonPrivate ledger gives no guarantee either way.
func (p *Pipeline) Mechanism(name string, m mechanisms.Mechanism, private bool) *mechanisms.Preprocessed {
	w := &mechanisms.Preprocessed{Inner: m, Steps: p.Pre, Text: p.StepsText(), Collection: p.Collection, Mode: p.Mode}
	if p.OnViolation == ViolationGroup {
		w.Violation = mechanisms.ViolationGroup
	}
	if private {
		w.Charge = func(e accounting.Event, c mechanisms.PipelineCharge) (accounting.Preprocessed, string) {
			return p.Event(name, m, e, c)
		}
	}
	return w
}
