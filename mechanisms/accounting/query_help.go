package accounting

import "strings"

// QueryHelp returns the help of "dplab account": what it asks, each
// form's event and flags (in the kinds' own files, by rank), the
// composition, the queries and the accountants.
func QueryHelp() string {
	var b strings.Builder
	b.WriteString(helpHead)
	for _, f := range forms() {
		b.WriteString(f.usage)
	}
	b.WriteString(helpTail)
	return b.String()
}

const helpHead = `Account asks the accountant what a mechanism's privacy is, as one would ask
dp_accounting or Opacus.

EVENT and its flags:
`

const helpTail = `
--steps T composes the event T times; --select runs it a random number of times
(Papernot & Steinke) and releases the best run.

Queries (one of):
  --delta D            print ε at δ = D (and the optimal RDP order α*)
  --epsilon E          print δ at ε = E
  --order A            print the composed RDP ε(A) itself (rdp accountant)
  --calibrate sigma --epsilon E --delta D
                       print the smallest noise parameter with ε ≤ E at δ = D (σ for
                       gaussian, sgm, objpert and amp, the scale b for laplace, γ for
                       gaussmix and rgm); its own flag is then not needed
  --calibrate gamma --epsilon E --order A [--rule R]   (rgm only)
                       solve γ and σ of one RGM release for the RDP target ε at order A
                       by rule R: theorem_v2 (default; exact, d term included),
                       neglect_d (the paper's experiments), local (§4.2), std_linear
                       (the authors' code) or theorem_v1 (the invalid v1 bound);
                       with --steps T, for T releases (ε/T each)

For pipeline, --delta prints each analysis' ε (by the accountant and by the paper's
conversion, Lemma M: min over α of ε(α) + log(1/δ)/(α − 1)) and the pipeline's ε (the
pointwise minimum of the analyses' RDP curves) with the analysis that produced it;
--order prints each analysis' RDP ε(α); for laplace the pure ε (δ = 0) is printed
too. The guarantee is conditional on the declared sensitivities.

For rgm, --delta also prints Corollary 1's closed form and the numeric optimum
of ε_RDP(α) + log(1/δ)/(α − 1) over α (the paper's conversion), next to the
accountant's (tighter) conversion.

Accountants: all (rdp, pld and exact side by side, each with its ε or δ, or
"n/a" and why when it cannot evaluate a valid event the others answer; invalid
input is an error, as with one accountant), rdp (default; orders "default" = dp_accounting's grid refined by a
continuous search over α, "grid" = dp_accounting's grid exactly, "opacus",
"tfprivacy" = TF Privacy's compute_dp_sgd_privacy orders, "integer" = 2..--max-order;
--conversion default = Balle et al. 2020 Thm 21 / Canonne–Kamath–Steinke 2020
Prop. 12, or classic = Mironov 2017 Prop. 3, min over α of RDP(α) + log(1/δ)/(α − 1),
which TF Privacy's tutorials print: never smaller, and both are valid upper bounds), pld (pessimistic connect-the-dots PLD, --interval),
exact (the tight closed form of a composed Gaussian or one objective
perturbation). Neighbouring relation: add/remove (gaussmix: zero-out;
rgm: replace-one; pipeline: replace-one unless --relation add_remove). The
pld and exact accountants do not evaluate pipelines.`
