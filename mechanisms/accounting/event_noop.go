package accounting

// NoOp releases nothing that depends on the data: ε = 0 under every relation.
type NoOp struct{}

func init() { registerLeaf(NoOp{}) }

// Kind implements Event.
func (NoOp) Kind() string { return "noop" }

func (NoOp) isEvent() {}

// Validate reports whether the event is well formed (always nil).
func (NoOp) Validate() error { return nil }

// MarshalJSON encodes {"kind":"noop"}.
func (e NoOp) MarshalJSON() ([]byte, error) { return withKind(e.Kind(), struct{}{}) }

func (NoOp) relation() string                { return "" }
func (NoOp) rdp(rdpOptions) (rdpTerm, error) { return rdpTerm{}, nil }
func (NoOp) pld() pldTerm                    { return pldTerm{} }
func (NoOp) exact() exactTerm                { return exactTerm{} }
