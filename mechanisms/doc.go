// Package mechanisms holds dplab's learners, private and reference, behind one
// interface and a registry. Each file registers one mechanism family in its
// init function with a typed params struct (decoded strictly from a spec's
// params table) and a tiny test configuration.
//
// # Invariants
//
//   - A mechanism draws randomness only from the trial's named streams, so the
//     same seed gives the same bits at any -j.
//   - A mechanism never modifies the training set it is given.
//   - Release.Event describes what the fit did, in a form the accountant
//     evaluates; the runner computes the ε actually spent from it (after
//     Budget.Wrap for tuning). No mechanism reports a number copied from the
//     budget.
//   - A mechanism that calibrates noise calibrates Budget.Wrap(event) against
//     the target, so the whole procedure meets it.
//
// # References
//
//	[Wang18] Y.-X. Wang. Revisiting differentially private linear regression:
//	         optimal and adaptive prediction & estimation in unbounded domain.
//	         UAI 2018, arXiv:1803.02596v2. Algorithm 2 (AdaSSP).
//	[LSS+25] O. Lev, V. Srinivasan, M. Shenfeld, K. Ligett, A. Sekhari,
//	         A. C. Wilson. The Gaussian mixing mechanism: Rényi differential
//	         privacy via Gaussian sketches. arXiv:2505.24603v1.
//	[She17]  O. Sheffet. Differentially private ordinary least squares.
//	         ICML 2017 (PMLR 70), arXiv:1507.02482. Algorithm 1, as adapted
//	         in [LSS+25] App. H.2 (Algorithms 4 and 5).
//	[KST12]  D. Kifer, A. Smith, A. Thakurta. Private convex empirical risk
//	         minimization and high-dimensional regression. COLT 2012 (PMLR
//	         23). Objective perturbation with Gaussian noise, as [LSS+25]
//	         Algorithm 6 and [RKW23] Thm 2.8.
//	[RKW23]  R. Redberg, A. Koskela, Y.-X. Wang. Improving the privacy and
//	         practicality of objective perturbation for differentially
//	         private linear learners. NeurIPS 2023, arXiv:2401.00583v1.
//	[CKS20]  C. Canonne, G. Kamath, T. Steinke. The discrete Gaussian for
//	         differential privacy. arXiv:2004.00010v4. Prop. 12 (RDP → DP;
//	         [LSS+25] Prop. 1).
//	[Mironov17] I. Mironov. Rényi differential privacy. CSF 2017,
//	         arXiv:1702.07476v3. Prop. 7 (Gaussian RDP), Prop. 2 (post-processing).
//	[RKW23]  R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and
//	         Practicality of Objective Perturbation for Differentially Private
//	         Linear Learners. NeurIPS 2023, arXiv:2401.00583v1. Algorithm 1,
//	         Thm 4.1, §5 (objpert-amp, dpsgd, logreg); formulas and errata in
//	         shared/research/objpert.md.
//	[Abadi16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
//	         K. Talwar, L. Zhang. Deep Learning with Differential Privacy.
//	         CCS 2016, arXiv:1607.00133v2, Algorithm 1 (dpsgd).
//	[CMS11]  K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially
//	         Private Empirical Risk Minimization. JMLR 12:1069–1109, 2011.
//	         Algorithm 1 and Corollary 8 (objpert-output).
//	[MTZ19]  I. Mironov, K. Talwar, L. Zhang. Rényi Differential Privacy of
//	         the Sampled Gaussian Mechanism. arXiv:1908.10530v1 (the dpsgd
//	         ledger's Poisson-subsampled Gaussian, add/remove).
package mechanisms
