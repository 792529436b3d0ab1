// Package preprocess implements the data-dependent, non-private
// pre-processing of [HSS24] (arXiv:2403.13041v1) with the sensitivities its
// privacy analysis needs: η-approximate deduplication (Dedup), η-quantization
// (Quantize), imputation by the mean, median, m-trimmed mean or linear
// regression (MeanImputer, MedianImputer, TrimmedMeanImputer, LinRegImputer),
// and PCA rank or dimension reduction (PCA); a Chain of steps; and the
// sensitivity probes that test every bound empirically (Probe, Swap,
// RunStandardProbes). Accounting — smooth RDP, Theorem 2, group privacy,
// PTR — lives in mechanisms/accounting; this package only states (Δ_∞, Δ_2).
//
// # Framework ([HSS24] §3, Def. 4; preprocessing.md §1)
//
// A pre-processor π is fitted on the features of the private dataset S and
// maps its rows: π_S(S). For neighbours S₁ = S ∪ {z₁}, S₂ = S ∪ {z₂}
// (replace-one, n fixed; add/remove for deduplication and quantization,
// [HSS24] footnote 4), Δ_∞ bounds how many rows x of S have
// π_{S₁}(x) ≠ π_{S₂}(x) and Δ_2 how far each moves, over a declared dataset
// collection 𝓛 (Collection). Theorem 2 then needs τ = Δ_2·Δ_∞
// (Sensitivity.Tau). Features only: labels are never pre-processed (D2).
// Rows lie in the unit ball (ClipRows before fitting, D2); deduplication
// keeps n rows and marks removed ones, which are zero (D3); missing values
// are NaN (D6).
//
// Every Sensitivity comes in two modes. Paper is the paper's statement,
// for reproducing its tables. Safe applies the errata of preprocessing.md
// Appendix A and closes the gaps found here; it is the one to account with.
//
//	pre-processor     Δ_∞ paper / safe               Δ_2 paper / safe
//	dedup             2b (b: add/remove) / 2m        1 / 1
//	quantize          2b (b) / 2m                    η / 2η
//	impute-mean       p / p                          2/(n−p) / (2 + √((n−1)/(n−p−1)))/(n−p−1)
//	impute-median     p / p                          hi − lo / (hi − lo)·√m_feat
//	impute-trimmed    p / p                          (hi − lo)/(n−2m−p) / ×√m_feat
//	impute-linreg     p / p                          λ²_max/((λ_max+1)λ²_min) + 1/λ_min / √m_feat(1 + √(n/λ_min))/λ_min
//	pca-rank          n / n                          12.2/(nδ^k) (n ≥ 101) / min(1, 4(3n+2)/(n(n−1)·min(δ^k, δ¹)))
//	pca-dim           n / n                          2× rank's / min(2, 2√(2k)·2(3n+2)/(n(n−1)·gap_all)), or 2
//
// m (safe dedup/quantize) is the most rows within 4η of any point, capped at
// n − 1; [lo, hi] the declared band of medians or retained order statistics;
// m_feat the most imputed values in one row.
//
// # What the paper gets wrong (each refuted by a probe witness)
//
//   - Prop. 3, Δ_∞ = 2b (b under add/remove): one record at 2.8η from q
//     good-cluster centres destroys them all (the "star"), q(b − 1) rows.
//     The proof (App. C.1) follows only the rows within η of the record.
//   - Prop. 3, quantization Δ_2 = η: 2η when both swapped records are the
//     kept centres of one row's cluster (erratum 17).
//   - Cor. 4, mean imputation Δ_2 = 2/(n−p): exceeded when z₁ and z₂ miss
//     different features (erratum 18).
//   - Table 3, median and trimmed mean: per imputed value; a row imputing m
//     values moves √m times as far.
//   - Prop. 5, dimension reduction: A_kᵀx depends on each eigenvector, so a
//     repeated eigenvalue inside the top k (λ₂ = λ₃) or a sign convention at
//     its boundary moves rows by up to 2, whatever δ^k and δ¹ are (the
//     proof's Eq. 36–37 drops the basis alignment; erratum 20).
//   - preprocessing.md §4.7's chaining rule misses the Δ_2 of the rows the
//     first step moves (ComposeSensitivity).
//
// The paper's Table 3 entry for linear regression was not refuted by the
// probes; the safe mode uses a bound derived here instead (its proof sketch
// is on LinRegImputer.Sensitivity). All "derived" bounds are marked
// Sensitivity.Derived and need a proof review before they back a claim.
//
// # Invariants
//
//   - A guarantee's parameters come from the declared Collection, never
//     from the data; Fitted.Observed reports what the data show, for
//     Fitted.Check to refuse data outside the collection (§4.5 rules 1, 6).
//   - Fit never modifies its input and returns fresh matrices; fitted
//     pre-processors are safe for concurrent use.
//   - Bad input (NaN where not allowed, rows outside the unit ball, bad
//     parameters, a collection without the needed values) is an error naming
//     the pre-processor and the parameter, never a panic.
//   - The probes draw from named streams (internal/rngs) seeded by
//     ProbeConfig.Seed: the same config gives the same swaps.
//
// # Adding a step
//
// A step is a Preprocessor in its own file (Fit, Sensitivity over a
// declared Collection in both modes, RowLipschitz and OutputDiameter, which
// Chain uses), and a case in Build and a name in Names (preprocess.go).
// Tests that range over Names pick it up (TestFitRefusesBadInput,
// TestSensitivityRefusesBadCollections, harness/report's
// TestQuantitiesCoverMechanisms). Not automatic, and not one file today: the
// params it reads in harness/spec's stepParams (pipeline.go), the word that
// shows a legend names it in harness/report's stepStems
// (render_pipeline.go), the labels of its diagnostics in
// harness/report/quantities.go, and its probe in StandardProbes, with a swap
// family that can refute its bounds.
//
// # References
//
// Citation keys are listed once, with their full entries, in
// docs/references.md. Outside results used in proofs are cited in words
// where they are used (Davis–Kahan in the form of Yu, Wang & Samworth 2015).
// The implementer's report: ../shared/research/preprocessing.md (§2 bounds,
// §4.5–4.7, §5 decisions D1–D25, Appendix A errata).
package preprocess
