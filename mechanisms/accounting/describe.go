package accounting

import (
	"fmt"
	"slices"
)

// KindName returns the accountant kind with the default applied ("rdp"
// when Kind is empty): the name records and captions carry.
func (c Config) KindName() string { return c.kind() }

// Describe returns the accountant and, for RDP, its order set, as figure
// and table captions state it: "rdp (orders default)", "rdp (orders
// integer 2..256 + 13 extra up to 8192)", "pld", "exact".
func (c Config) Describe() string {
	kind := c.kind()
	if kind != "rdp" {
		return kind
	}
	orders := c.Orders
	if orders == "" {
		orders = "default"
	}
	if orders == "integer" {
		hi := c.MaxOrder
		if hi == 0 {
			hi = 256
		}
		orders = fmt.Sprintf("integer 2..%d", hi)
	}
	if len(c.ExtraOrders) > 0 {
		orders += fmt.Sprintf(" + %d extra up to %g", len(c.ExtraOrders), slices.Max(c.ExtraOrders))
	}
	return fmt.Sprintf("%s (orders %s)", kind, orders)
}
