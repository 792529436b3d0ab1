package accounting

// param is one parameter of a query, given on the command line as --name;
// def is its default and sets its type (float64, int, bool or string).
type param struct {
	name  string
	def   any
	usage string
}

// generalParams are the parameters every form takes: the composition, the
// query and the accountant.
func generalParams() []string {
	return []string{"steps", "select", "delta", "epsilon", "order", "accountant", "orders",
		"max-order", "sgm", "interval", "calibrate", "conversion"}
}

// queryParams returns every parameter: the general ones, those of the
// kinds' forms (several forms share one, with one meaning and usage), and
// any a form declares alone (form.params).
func queryParams() []param {
	ps := []param{
		{"steps", 1, "number of adaptive repetitions T"},
		{"select", "", "private selection: poisson:MEAN, tnb:MEAN:ETA, geometric:MEAN or logarithmic:MEAN"},
		{"delta", 0.0, "δ at which to report ε"},
		{"epsilon", 0.0, "ε at which to report δ (or the calibration target)"},
		{"order", 0.0, "report the RDP ε(α) at this order α"},
		{"accountant", "rdp", "accountant: rdp, pld, exact, or all (the three side by side)"},
		{"orders", "default", "RDP orders: default, grid, opacus, tfprivacy or integer"},
		{"max-order", 256, "largest order of --orders integer (at most 1000000)"},
		{"sgm", "bound", "sampled-Gaussian fractional orders: bound (dp_accounting) or exact"},
		{"interval", DefaultInterval, "PLD discretisation interval"},
		{"calibrate", "", "calibrate the noise parameter: sigma"},
		{"conversion", "default", "RDP → (ε, δ) conversion: default (Balle et al. 2020 / Canonne–Kamath–Steinke) or classic (Mironov 2017, TF Privacy's tutorials)"},

		{"sigma", 0.0, "noise standard deviation σ (gaussian, objpert, amp) or noise multiplier (sgm)"},
		{"sensitivity", 1.0, "L2 (gaussian) or L1 (laplace) sensitivity"},
		{"scale", 0.0, "Laplace scale b"},
		{"q", 0.0, "Poisson sampling rate (sgm)"},
		{"lambda", 0.0, "ridge regularisation λ > β (objpert, amp)"},
		{"beta", 0.0, "smoothness β of the loss (objpert, amp)"},
		{"lipschitz", 0.0, "Lipschitz bound L, or clip norm C for amp (objpert, amp)"},
		{"tau", 0.0, "gradient-norm tolerance τ (amp)"},
		{"sigma-out", 0.0, "output noise σ_out (amp)"},
		{"k", 0, "sketch size k (gaussmix)"},
		{"gamma", 0.0, "γ (gaussmix: > 1; rgm: > 0)"},
		{"eta", 0.0, "relative sensitivity η (rgm)"},
		{"d", 0, "output dimension (rgm)"},
		{"v1", false, "use the (invalid near its order limit) v1 bound of RGM Theorem 1"},
		{"r-rel", 0.0, "absolute part R_rel of the relative sensitivity (rgm)"},
		{"form", "", "noise form (rgm): empty (variance γ‖R‖² + σ²) or std_linear (the authors' code)"},
		{"rule", "theorem_v2", "RDP-target calibration rule (rgm): theorem_v2, neglect_d, local, std_linear or theorem_v1"},
		{"event", "", "the event as JSON (event json)"},
		{"mech", "", "pipeline: the mechanism (gaussian, laplace, dp-gd or dp-sgd)"},
		{"delta-inf", 0, "pipeline: Δ∞, the rows of the common part the pre-processing maps differently"},
		{"delta-2", 0.0, "pipeline: Δ₂, the largest L2 move of such a row"},
		{"n", 0, "dataset size n (sgm: with --batch-size and --epochs; pipeline: caps the group size; dp-gd: its n)"},
		{"batch-size", 0, "sgm: expected batch size B (q = B/n)"},
		{"epochs", 0.0, "sgm: epochs E (T = ⌈E·n/B⌉ steps)"},
		{"analysis", "", "pipeline: comma-separated analyses (default exact_factor,tight_pq,tight_pq_min,frobenius,group)"},
		{"relation", "", "pipeline: neighbouring relation of the sensitivities, replace_one (default) or add_remove"},
		{"group-size-offset", 0, "pipeline: g = min(Δ∞ + K, n) (0 means 1)"},
		{"l12", 0.0, "pipeline: Lipschitz constant of the query in the L12 distance (gaussian, laplace)"},
		{"lf", 0.0, "pipeline: Lipschitz constant of the query in the Frobenius distance (gaussian, laplace)"},
		{"clip", 0.0, "pipeline: per-example clipping norm C (dp-sgd)"},
		{"mu-x", 0.0, "pipeline: smoothness of the per-example gradient in the data (dp-gd, dp-sgd)"},
	}
	for _, f := range forms() {
		ps = append(ps, f.params...)
	}
	return ps
}
