package accounting

// NonPrivate releases something with no privacy guarantee: ε = +Inf.
type NonPrivate struct{}

func init() { registerLeaf(NonPrivate{}) }

// Kind implements Event.
func (NonPrivate) Kind() string { return "non_private" }

func (NonPrivate) isEvent() {}

// Validate reports whether the event is well formed (always nil).
func (NonPrivate) Validate() error { return nil }

// MarshalJSON encodes {"kind":"non_private"}.
func (e NonPrivate) MarshalJSON() ([]byte, error) { return withKind(e.Kind(), struct{}{}) }

func (NonPrivate) relation() string { return "" }

func (NonPrivate) rdp(rdpOptions) (rdpTerm, error) { return rdpTerm{infinite: true}, nil }

func (NonPrivate) pld() pldTerm { return pldTerm{nonPrivate: true} }

func (NonPrivate) exact() exactTerm { return exactTerm{nonPrivate: true} }
