package accounting

import "errors"

func newPLDAccountant(interval float64) Accountant { return nil }

var errPLDPending = errors.New("accounting: the pld accountant is not available yet")
