// Package accounting turns what a mechanism did into a privacy guarantee.
//
// Mechanisms describe their privacy cost as immutable events (Gaussian,
// Laplace, PoissonSampledGaussian, ObjectivePerturbation, AMP, GaussMix, RGM,
// RepeatAndSelect, SelfComposed, Composed, NoOp, NonPrivate, and ApproxDP for
// an (ε, δ) guarantee given by a theorem or a failure probability), in the
// style of dp_accounting's DpEvent algebra. Accountants evaluate a ledger of events:
//
//   - "rdp": Rényi DP ([Mir17]) on an order set — dp_accounting's grid,
//     Opacus' orders, or integers — optionally refined by a continuous 1-D
//     search over α, converted to (ε, δ) with [BBG+20] Thm 21 / [CKS20]
//     Prop. 12. It supports every event.
//   - "pld": privacy loss distributions discretised pessimistically by
//     connect-the-dots ([DGK+22]) and composed by FFT, for Gaussian, Laplace,
//     the Poisson-subsampled Gaussian (both add and remove directions) and
//     objective perturbation.
//   - "exact": closed-form tight privacy profiles (composed Gaussians via
//     [BW18]/[DRS19], objective perturbation via [RKW23] Thm 3.1).
//
// Calibrator inverts an accountant: the smallest noise whose accounted ε
// meets a target, memoised by the event family itself (its events' JSON at
// two reference noise values), never by a hand-built key. Closed forms of the four papers dplab reproduces
// (ObjPertRDP, ObjPertDelta, KiferEpsilon, GaussMixRDP, Sheffet2019Epsilon,
// GaussMixTheorem1Epsilon, RGMEpsilon, CalibrateAMP, …) are exported for the
// mechanisms and figures that need them.
//
// # Events: one file per kind
//
// Each kind lives in its own event_<kind>.go: the type, Kind, Validate,
// MarshalJSON (the "kind" tag first, withKind), its neighbouring relation
// and its RDP curve (leafEvent, which registerLeaf requires: a leaf without
// them does not compile), the PLD and exact accountants' methods (pld,
// exact) when they evaluate it, and an init that registers it with a valid
// example in the kind table (event_kinds.go). The table drives JSON decoding
// and the conformance tests (kinds_test.go: JSON round trip, validation,
// every accountant) enumerate it. Composed and SelfComposed are the
// composition algebra: walk (event.go) is the one traversal, visiting the
// leaves with their multiplicities; an accountant evaluates a leaf iff the
// leaf implements its interface (rdpEvent, pldEvent, exactEvent), and
// reports any other by name (*UnsupportedError).
//
// # Invariants
//
//   - A reported ε is never smaller than the guarantee the composed events
//     certify: every evaluator is exact or an upper bound (the sampled
//     Gaussian at fractional orders is dp_accounting's absolute-value series,
//     an upper bound, unless Config.SGM is "exact"; PLDs are pessimistic).
//   - Calibrate never returns a noise level whose ε exceeds the target: its
//     answer is an evaluated point that meets the target.
//   - +Inf means no guarantee; NaN never escapes (it becomes an error).
//   - Compose is atomic and Check is its dry run: an unsupported sub-event is
//     reported by name (*UnsupportedError) before anything changes.
//   - Every ledger has one neighbouring relation (add/remove unless an event
//     fixes another); events with different fixed relations do not compose.
//   - The package keeps no global mutable state but the event kind table,
//     filled by init functions; memoisation lives in accountants and
//     Calibrators.
//
// # References
//
//   - [Mir17] I. Mironov, "Rényi Differential Privacy", CSF 2017, arXiv:1702.07476v3.
//   - [MTZ19] I. Mironov, K. Talwar, L. Zhang, "Rényi Differential Privacy of
//     the Sampled Gaussian Mechanism", arXiv:1908.10530v1.
//   - [ACG+16] M. Abadi et al., "Deep Learning with Differential Privacy",
//     CCS 2016, arXiv:1607.00133v2.
//   - [BBG+20] B. Balle, G. Barthe, M. Gaboardi, J. Hsu, T. Sato, "Hypothesis
//     Testing Interpretations and Rényi Differential Privacy", AISTATS 2020,
//     arXiv:1905.09982v2.
//   - [CKS20] C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for
//     Differential Privacy", arXiv:2004.00010v4.
//   - [ALC+21] S. Asoodeh, J. Liao, F. Calmon, O. Kosut, L. Sankar, "Three
//     Variants of Differential Privacy: Lossless Conversion and
//     Applications", arXiv:2001.05990v1.
//   - [BW18] B. Balle, Y.-X. Wang, "Improving the Gaussian Mechanism for
//     Differential Privacy: Analytical Calibration and Optimal Denoising",
//     ICML 2018, arXiv:1805.06530v2.
//   - [DRS19] J. Dong, A. Roth, W. Su, "Gaussian Differential Privacy",
//     arXiv:1905.02383v3.
//   - [PS22] N. Papernot, T. Steinke, "Hyperparameter Tuning with Rényi
//     Differential Privacy", ICLR 2022, arXiv:2110.03620v2.
//   - [DGK+22] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi,
//     "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
//     Distributions", PETS 2022, arXiv:2207.04380v1.
//   - [KJPH21] A. Koskela, J. Jälkö, L. Prediger, A. Honkela, "Tight
//     Differential Privacy for Discrete-Valued Mechanisms and for the
//     Subsampled Gaussian Mechanism Using FFT", AISTATS 2021,
//     arXiv:2006.07134v3.
//   - [DR14] C. Dwork, A. Roth, "The Algorithmic Foundations of Differential
//     Privacy", Found. Trends Theor. Comput. Sci. 9(3–4), 2014. Thm 3.16
//     (basic composition).
//   - [KST12] D. Kifer, A. Smith, A. Thakurta, "Private Convex Empirical
//     Risk Minimization and High-dimensional Regression", COLT 2012.
//   - [She19] O. Sheffet, "Old Techniques in Differentially Private Linear
//     Regression", ALT 2019.
//   - [RKW23] R. Redberg, A. Koskela, Y.-X. Wang, "Improving the Privacy and
//     Practicality of Objective Perturbation for Differentially Private
//     Linear Learners", NeurIPS 2023, arXiv:2401.00583v1.
//   - [LSS+25] O. Lev, V. Srinivasan, M. Shenfeld, K. Ligett, A. Sekhari,
//     A. C. Wilson, "The Gaussian Mixing Mechanism: Rényi Differential
//     Privacy via Gaussian Sketches", arXiv:2505.24603 (the stored text
//     prints no version; numbering as in shared/papers/003).
//   - [HMB23] H. Hendrikx, P. Mangold, A. Bellet, "The Relative Gaussian
//     Mechanism and its Application to Private Gradient Descent", AISTATS
//     2024, arXiv:2308.15250v2 (v1: the 2023 first version,
//     shared/papers/002).
//   - [Hig02] N. J. Higham, "Accuracy and Stability of Numerical
//     Algorithms", 2nd ed., SIAM 2002. Thm 24.2: the FFT's error bound.
//   - [vEH14] T. van Erven, P. Harremoës, "Rényi Divergence and
//     Kullback-Leibler Divergence", IEEE Trans. Inf. Theory 60(7), 2014,
//     arXiv:1206.2459v2. Thm 3: D_α is non-decreasing in α.
//   - [DPA] google/differential-privacy b5b0286, python/dp_accounting
//     (dp_accounting 0.6.0): the reference implementation matched by the
//     golden vectors.
package accounting
