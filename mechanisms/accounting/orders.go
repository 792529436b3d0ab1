package accounting

import "sort"

// GridOrders returns dp_accounting's DEFAULT_RDP_ORDERS (google/differential-
// privacy b5b0286, python/dp_accounting/dp_accounting/rdp/
// rdp_privacy_accountant.py): 1 + x/10 for x = 1..99, then 11..63, then 128,
// 256, 512, 1024 — 156 orders, in that order.
func GridOrders() []float64 {
	out := make([]float64, 0, 156)
	for x := 1; x < 100; x++ {
		out = append(out, 1+float64(x)/10.0)
	}
	for a := 11; a < 64; a++ {
		out = append(out, float64(a))
	}
	return append(out, 128, 256, 512, 1024)
}

// OpacusOrders returns Opacus' DEFAULT_ALPHAS (pytorch/opacus 4d0ebc84,
// opacus/accountants/rdp.py): 1 + x/10 for x = 1..99, then 12..63.
func OpacusOrders() []float64 {
	out := make([]float64, 0, 151)
	for x := 1; x < 100; x++ {
		out = append(out, 1+float64(x)/10.0)
	}
	for a := 12; a < 64; a++ {
		out = append(out, float64(a))
	}
	return out
}

// TFPrivacyOrders returns the orders of TF Privacy's compute_dp_sgd_privacy
// (tensorflow/privacy, tensorflow_privacy/privacy/analysis/
// compute_dp_sgd_privacy_lib.py, the command its tutorials run): 1.25 to 2.5
// in steps of 0.25, 3 to 4.5 in steps of 0.5, then 5..63, 128, 256, 512.
func TFPrivacyOrders() []float64 {
	out := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
	for a := 5; a < 64; a++ {
		out = append(out, float64(a))
	}
	return append(out, 128, 256, 512)
}

// IntegerOrders returns the orders lo, lo+1, …, hi.
func IntegerOrders(lo, hi int) []float64 {
	out := make([]float64, 0, hi-lo+1)
	for a := lo; a <= hi; a++ {
		out = append(out, float64(a))
	}
	return out
}

// ExtendedOrders returns the orders beyond 256 that objpert.md §2.7 adds to
// 2..256 for honest DP-SGD at very small ε (a new slice each call, as the
// other order sets: the package holds no table a caller could change).
func ExtendedOrders() []float64 {
	return []float64{320, 384, 448, 512, 640, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192}
}

// orderSet returns the configuration's order set: the named set plus
// ExtraOrders, sorted ascending and without duplicates (the named sets are
// already ascending, so dp_accounting's tie-breaking by position is kept).
func (c Config) orderSet() []float64 {
	var base []float64
	switch c.Orders {
	case "opacus":
		base = OpacusOrders()
	case "tfprivacy":
		base = TFPrivacyOrders()
	case "integer":
		hi := c.MaxOrder
		if hi == 0 {
			hi = 256
		}
		base = IntegerOrders(2, hi)
	default:
		base = GridOrders()
	}
	if len(c.ExtraOrders) == 0 {
		return base
	}
	all := append(base, c.ExtraOrders...)
	sort.Float64s(all)
	out := all[:1]
	for _, a := range all[1:] {
		if a != out[len(out)-1] {
			out = append(out, a)
		}
	}
	return out
}
